CREATE TABLE t (id INT NOT NULL, n INT NOT NULL, s STRING, d DECIMAL(5, 2), ts TIMESTAMP(3)) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/t.jsonl', 'format' = 'json');
CREATE TABLE out_rows (id INT, a STRING, b STRING, c STRING, e STRING, f STRING, g STRING, h STRING, i STRING) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT id, TYPEOF(n + 1), TYPEOF(n * n), TYPEOF(n - CAST(2 AS BIGINT)), TYPEOF(n > 1), TYPEOF(s = 'abc'),
  TYPEOF(n <> id), TYPEOF(CAST(n AS DOUBLE) * 2), TYPEOF(d < 1) FROM t;
