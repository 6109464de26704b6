CREATE TABLE out_rows (id INT, n_type STRING, d_type STRING, s_type STRING, c_type STRING, t_type STRING,
  n STRING, d STRING, s STRING, c STRING, t STRING, b STRING) WITH ('connector' = 'print');
INSERT INTO out_rows
SELECT id, TYPEOF(n), REPLACE(TYPEOF(d), ', ', ';'), TYPEOF(s), TYPEOF(c), TYPEOF(t), CAST(n AS STRING), CAST(d AS STRING),
  CONCAT('[', s, ']'), CONCAT('[', c, ']'), CAST(t AS STRING), CAST(b AS STRING)
FROM (VALUES (1, 1, 2.5, 'a', 'xy', TIMESTAMP '2024-01-01 10:00:00', CAST(NULL AS BIGINT)),
             (2, 3000000000, 10, 'abc', 'zz', TIMESTAMP '2024-01-01 10:00:00.123456', 7),
             (3, -4, CAST(1.25 AS DECIMAL(4, 2)), CAST('q' AS VARCHAR(10)), 'ab', TIMESTAMP '2024-02-29 23:59:59.5', 8))
  AS v(id, n, d, s, c, t, b);
