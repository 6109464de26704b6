CREATE TABLE t (id INT, k INT, v INT, ts TIMESTAMP(3)) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/t.jsonl', 'format' = 'json');
CREATE TABLE out_rows (x INT, v INT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT id AS x, v FROM t ORDER BY id DESC LIMIT 3;
