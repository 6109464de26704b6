CREATE TABLE t (id INT, s STRING) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/t.jsonl', 'format' = 'json');
CREATE TABLE out_rows (id INT, d DATE, ts TIMESTAMP(3), ltz TIMESTAMP_LTZ(3), bo BOOLEAN, db DOUBLE)
  WITH ('connector' = 'print');
INSERT INTO out_rows SELECT id, TRY_CAST(s AS DATE), TRY_CAST(s AS TIMESTAMP(3)), TRY_CAST(s AS TIMESTAMP_LTZ(3)),
  TRY_CAST(s AS BOOLEAN), TRY_CAST(s AS DOUBLE)
FROM t;
