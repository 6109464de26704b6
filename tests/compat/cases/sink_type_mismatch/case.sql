CREATE TABLE s (id INT, name STRING) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/s.jsonl', 'format' = 'json');
CREATE TABLE out_rows (id INT, n INT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT id, name FROM s;
