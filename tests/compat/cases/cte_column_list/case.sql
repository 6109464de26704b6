CREATE TABLE out_rows (c INT, b INT) WITH ('connector' = 'print');
INSERT INTO out_rows
WITH x (a, b) AS (SELECT * FROM (VALUES (1, 10), (2, 20)) AS t(p, q)),
     y (c, d) AS (SELECT a + b, a FROM x)
SELECT c, x.b FROM y JOIN x ON y.d = x.a;
