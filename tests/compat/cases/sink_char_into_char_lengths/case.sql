CREATE TABLE t (id INT, s STRING) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/t.jsonl', 'format' = 'json');
CREATE TABLE out_rows (id INT, lit CHAR(3), longer CHAR(3), shorter CHAR(3)) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT id, 'ab', CAST(s AS CHAR(5)), CAST(s AS CHAR(2)) FROM t;
