CREATE TABLE s (id INT, m MAP<STRING, INT>, n MAP<STRING, INT>, k ARRAY<STRING>, v ARRAY<INT>) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/in.jsonl', 'format' = 'json');
CREATE TABLE out_rows (id INT, mk ARRAY<STRING>, mv ARRAY<INT>, me ARRAY<ROW<`key` STRING, `value` INT>>,
  fa MAP<STRING, INT>, fan INT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT id, MAP_KEYS(m), MAP_VALUES(m), MAP_ENTRIES(m), MAP_FROM_ARRAYS(k, v),
  CARDINALITY(MAP_FROM_ARRAYS(k, v)) FROM s;
