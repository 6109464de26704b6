CREATE TABLE s (id INT, a ARRAY<INT>, m MAP<STRING, INT>) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/in.jsonl', 'format' = 'json');
CREATE TABLE out_rows (id INT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT id FROM s WHERE a = ARRAY[1, CAST(NULL AS INT), 3] OR m = MAP['k', 1, 'j', CAST(NULL AS INT)] OR a = ARRAY[1, 2];
