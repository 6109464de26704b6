CREATE TABLE out_rows (id INT, name STRING) WITH ('connector' = 'print');
INSERT INTO out_rows VALUES (1, 'a'), (2, NULL);
