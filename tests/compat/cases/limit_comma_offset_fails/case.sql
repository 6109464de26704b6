CREATE TABLE t (id INT, v INT) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/t.jsonl', 'format' = 'json');
CREATE TABLE out_rows (id INT, v INT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT id, v FROM t LIMIT 1, 2;
