CREATE TABLE out_rows (a INT) WITH ('connector' = 'print');
CREATE VIEW w (a) AS VALUES (1, 'x'), (2, 'y');
INSERT INTO out_rows SELECT a FROM w;
