CREATE TABLE t (id INT, g STRING, v INT, s STRING, sec INT) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/t.jsonl', 'format' = 'json');
CREATE TABLE out_rows (x INT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT a0 FROM (SELECT id AS a0, g AS a, v AS a FROM t);
