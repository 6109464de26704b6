CREATE TABLE t (id INT, s STRING, d DECIMAL(10, 4), ts TIMESTAMP(6)) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/t.jsonl', 'format' = 'json');
CREATE TABLE out_rows (id INT, v VARCHAR(3), c CHAR(5), d DECIMAL(5, 2), t3 TIMESTAMP(3), t0 TIMESTAMP(0), missing STRING) WITH ('connector' = 'print');
INSERT INTO out_rows (t0, t3, d, c, v, id) SELECT ts, ts, d, CAST(s AS CHAR(3)), s, id FROM t;
