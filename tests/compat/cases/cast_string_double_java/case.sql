CREATE TABLE t (id INT, s STRING) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/t.jsonl', 'format' = 'json');
CREATE TABLE out_rows (id INT, d DOUBLE, f FLOAT, ds STRING) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT id, TRY_CAST(s AS DOUBLE), TRY_CAST(s AS FLOAT), CAST(TRY_CAST(s AS DOUBLE) AS STRING)
FROM t;
