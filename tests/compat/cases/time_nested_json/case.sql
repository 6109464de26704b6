CREATE TABLE t (id INT, r ROW<x TIME(3), y INT>, arr ARRAY<TIME>, m MAP<STRING, TIME>) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/in.jsonl', 'format' = 'json');
CREATE TABLE out_rows (id INT, r ROW<x TIME(3), y INT>, arr ARRAY<TIME>, m MAP<STRING, TIME>, x TIME(3), e TIME)
  WITH ('connector' = 'print');
INSERT INTO out_rows SELECT id, r, arr, m, r.x, arr[1] FROM t;
