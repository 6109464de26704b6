CREATE TABLE out_rows (id INT, c CHAR(5)) WITH ('connector' = 'print');
INSERT INTO out_rows VALUES (1, 'ab'), (2, 'abc');
