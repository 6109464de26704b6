CREATE TABLE t (id INT, s STRING) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/t.jsonl', 'format' = 'json');
CREATE TABLE out_rows (id INT, i INT, b BIGINT, ti TINYINT, si SMALLINT, n STRING) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT id, TRY_CAST(s AS INT), TRY_CAST(s AS BIGINT), TRY_CAST(s AS TINYINT), TRY_CAST(s AS SMALLINT),
  CAST(TRY_CAST(TRY_CAST(s AS INT) AS STRING) AS STRING)
FROM t;
