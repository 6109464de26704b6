CREATE TABLE t (id INT, t3 TIMESTAMP(3), t0 TIMESTAMP(0), l3 TIMESTAMP_LTZ(3)) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/t.jsonl', 'format' = 'json');
CREATE TABLE out_rows (id INT, a STRING, b BOOLEAN, c STRING, d STRING, f STRING) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT id, CAST(t3 AS STRING), t3 < TIMESTAMP '1970-01-01 00:00:00', CAST(l3 AS STRING),
  CAST(CAST(t0 AS TIMESTAMP(3)) AS STRING), CAST(CAST(t3 AS TIMESTAMP(0)) AS STRING)
FROM t;
