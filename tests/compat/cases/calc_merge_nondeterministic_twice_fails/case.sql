CREATE TABLE t (id INT, a INT, b INT, s STRING) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/t.jsonl', 'format' = 'json');
CREATE TABLE out_rows (id INT, q INT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT id, q FROM (SELECT id, a / b AS q, b, UUID() AS r FROM t) WHERE b <> 0 AND CHAR_LENGTH(r) > 0 AND CHAR_LENGTH(r) < 100;
