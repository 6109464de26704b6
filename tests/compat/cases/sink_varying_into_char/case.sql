CREATE TABLE t (id INT, s STRING) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/t.jsonl', 'format' = 'json');
CREATE TABLE out_rows (id INT, c CHAR(3)) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT id, x FROM (SELECT id, s AS x FROM t WHERE id > 0);
