CREATE TABLE t (id INT, s STRING) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/t.jsonl', 'format' = 'json');
CREATE TABLE out_rows (id INT, plain TIMESTAMP(3), dashed TIMESTAMP(3), compact TIMESTAMP(3)) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT id, TO_TIMESTAMP(s), TO_TIMESTAMP(s, 'yyyy-MM-dd HH:mm:ss'), TO_TIMESTAMP(s, 'yyyyMMdd')
FROM t;
