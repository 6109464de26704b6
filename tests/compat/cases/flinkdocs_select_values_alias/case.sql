CREATE TABLE out_rows (order_id INT, price DECIMAL(2, 1)) WITH ('connector' = 'print');
INSERT INTO out_rows
SELECT order_id, price FROM (VALUES (1, 2.0), (2, 3.1))  AS t (order_id, price);
