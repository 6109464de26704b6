CREATE TABLE t (id INT, s STRING) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/t.jsonl', 'format' = 'json');
CREATE TABLE out_rows (id INT, dm DECIMAL(10, 2), dw DECIMAL(20, 3), fl FLOAT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT id, TRY_CAST(s AS DECIMAL(10, 2)), TRY_CAST(s AS DECIMAL(20, 3)), TRY_CAST(s AS FLOAT)
FROM t;
