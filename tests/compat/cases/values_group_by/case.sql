CREATE TABLE out_rows (k STRING, n BIGINT, total INT, longest STRING, PRIMARY KEY (k) NOT ENFORCED) WITH ('connector' = 'print');
INSERT INTO out_rows
SELECT k, COUNT(*), SUM(v), MAX(s) FROM (VALUES ('a', 1, 'x'), ('b', 2, 'yy'), ('a', 3, 'zzz'), ('b', -2, 'w')) AS t(k, v, s) GROUP BY k;
