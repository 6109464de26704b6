CREATE TABLE s (id INT, s STRING, t STRING, m MAP<STRING, INT>, n MAP<STRING, INT>, k ARRAY<STRING>, v ARRAY<INT>) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/in.jsonl', 'format' = 'json');
CREATE TABLE out_rows (id INT, sm MAP<STRING, STRING>, ss STRING, sk ARRAY<STRING>, sv ARRAY<STRING>, tss STRING,
  te ARRAY<ROW<`key` STRING, `value` STRING>>, mc STRING, mcs STRING, fa STRING, u STRING, uk ARRAY<STRING>,
  u3 STRING, us STRING, uj STRING) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT id, STR_TO_MAP(s), CAST(STR_TO_MAP(s) AS STRING), MAP_KEYS(STR_TO_MAP(s)),
  MAP_VALUES(STR_TO_MAP(s)), CAST(STR_TO_MAP(t, ';', ':') AS STRING), MAP_ENTRIES(STR_TO_MAP(t, ';', ':')),
  CAST(MAP['b', id, 'a', 2, 'b', 3, 'c', 4] AS STRING), CAST(MAP['i', 1, 'a', id, 'a', 3] AS STRING),
  CAST(MAP_FROM_ARRAYS(k, v) AS STRING), CAST(MAP_UNION(m, n) AS STRING), MAP_KEYS(MAP_UNION(n, m)),
  CAST(MAP_UNION(MAP['a', id, 'b', 2], MAP['b', 3, 'c', 4], MAP['d', 5, 'a', 6]) AS STRING),
  CAST(MAP_UNION(STR_TO_MAP('b=1,a=2,i=7'), STR_TO_MAP(s)) AS STRING), CAST(MAP_UNION(m, MAP['a', id]) AS STRING)
FROM s;
