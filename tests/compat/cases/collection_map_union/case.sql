CREATE TABLE s (id INT, m MAP<STRING, INT>, n MAP<STRING, INT>, k ARRAY<STRING>, v ARRAY<INT>) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/in.jsonl', 'format' = 'json');
CREATE TABLE out_rows (id INT, u MAP<STRING, INT>, u3 MAP<STRING, INT>, uu MAP<STRING, INT>, n INT, uk ARRAY<STRING>,
  uv ARRAY<INT>) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT id, MAP_UNION(m, n), MAP_UNION(n, m, n), MAP_UNION(m, m), CARDINALITY(MAP_UNION(m, n)),
  MAP_KEYS(MAP_UNION(m, n)), MAP_VALUES(MAP_UNION(n, m)) FROM s;
