CREATE TABLE out_rows (id INT, c CHAR(5), c2 CHAR(5), v VARCHAR(3)) WITH ('connector' = 'print');
INSERT INTO out_rows VALUES (1, 'abcdefg', 'ab', 'abcdefg'), (2, 'hijklmn', 'cd', 'hijklmn');
