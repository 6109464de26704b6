CREATE TABLE t (id INT, s STRING) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/t.jsonl', 'format' = 'json');
CREATE TABLE out_rows (id INT, i INT, b BIGINT, ti TINYINT, d DOUBLE, dm DECIMAL(5, 2), bo BOOLEAN) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT id, TRY_CAST(s AS INT), TRY_CAST(s AS BIGINT), TRY_CAST(s AS TINYINT), TRY_CAST(s AS DOUBLE),
  TRY_CAST(s AS DECIMAL(5, 2)), TRY_CAST(s AS BOOLEAN)
FROM t;
