CREATE TABLE t (id INT, n BIGINT, m BIGINT) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/t.jsonl', 'format' = 'json');
CREATE TABLE out_rows (id INT, a STRING, b STRING, c STRING, d TIMESTAMP_LTZ(6), e STRING) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT id, CAST(TO_TIMESTAMP_LTZ(n, 6) AS STRING), CAST(TO_TIMESTAMP_LTZ(m, 3) AS STRING),
  CAST(x6 AS STRING), x6, CAST(CAST(x6 AS TIMESTAMP_LTZ(3)) AS STRING)
FROM (SELECT *, TO_TIMESTAMP_LTZ(n, 6) AS x6 FROM t);
