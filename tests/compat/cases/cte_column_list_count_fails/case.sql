CREATE TABLE out_rows (a INT) WITH ('connector' = 'print');
INSERT INTO out_rows WITH z (a) AS (SELECT 1, 2) SELECT a FROM z;
