CREATE TABLE s (id INT, k ARRAY<STRING>, v ARRAY<INT>) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/in.jsonl', 'format' = 'json');
CREATE TABLE out_rows (id INT, m MAP<STRING, INT>) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT id, MAP_FROM_ARRAYS(k, v) FROM s;
