CREATE TABLE t (id INT, s STRING, d DOUBLE, x DECIMAL(11, 3)) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/t.jsonl', 'format' = 'json');
CREATE TABLE out_rows (id INT, from_double STRING, from_decimal STRING, from_product STRING,
  into_sink DECIMAL(10, 2), double_into_sink DECIMAL(10, 2), text_wide STRING) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT id, CAST(CAST(d AS DECIMAL(10, 2)) AS STRING), CAST(CAST(x AS DECIMAL(10, 2)) AS STRING),
  CAST(CAST(x * CAST(1 AS DECIMAL(1, 0)) AS DECIMAL(10, 2)) AS STRING), x, d, CAST(CAST(s AS DECIMAL(20, 2)) AS STRING)
FROM t;
