CREATE TABLE out_rows (id INT, name STRING, extra STRING) WITH ('connector' = 'print');
INSERT INTO out_rows (id, name) VALUES (1, 'a', 'x');
