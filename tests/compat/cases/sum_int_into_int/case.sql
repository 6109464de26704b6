CREATE TABLE s (id INT, v INT) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/s.jsonl', 'format' = 'json');
CREATE TABLE out_rows (id INT, total INT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT id, SUM(v) FROM s GROUP BY id;
