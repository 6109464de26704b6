CREATE TABLE out_rows (a INT) WITH ('connector' = 'print');
CREATE VIEW u (a, a) AS VALUES (1, 'x');
INSERT INTO out_rows SELECT a FROM u;
