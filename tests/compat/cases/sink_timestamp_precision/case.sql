CREATE TABLE t (id INT, s STRING, d DECIMAL(10, 4), ts TIMESTAMP(6)) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/t.jsonl', 'format' = 'json');
CREATE TABLE out_rows (id INT, v3a VARCHAR(3), v3b VARCHAR(3), v5 VARCHAR(5), v6 VARCHAR(6), d52 DECIMAL(5, 2), d102 DECIMAL(10, 2), d3810 DECIMAL(38, 10),
  t3 TIMESTAMP(3), t0 TIMESTAMP(0), t9 TIMESTAMP(9), l3 TIMESTAMP_LTZ(3), st STRING, sc STRING) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT id, CAST(s AS VARCHAR(3)), CAST(s AS VARCHAR(5)), CAST(s AS CHAR(3)), s, d, d, d,
  ts, ts, ts, CAST(ts AS TIMESTAMP_LTZ(6)), CAST(s AS CHAR(3)), CAST(s AS VARCHAR(4))
FROM t;
