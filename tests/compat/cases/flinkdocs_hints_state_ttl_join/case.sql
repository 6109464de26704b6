CREATE TABLE orders (o_id INT, o_customer_id INT, amount INT) WITH ('connector' = 'filesystem', 'path' = '${CASE_DIR}/orders.jsonl', 'format' = 'json');
CREATE TABLE customers (c_id INT, c_name STRING) WITH ('connector' = 'filesystem', 'path' = '${CASE_DIR}/customers.jsonl', 'format' = 'json');
CREATE TABLE out_rows (o_id INT, c_name STRING, amount INT) WITH ('connector' = 'print');
INSERT INTO out_rows
SELECT /*+ STATE_TTL('orders'= '1d', 'customers' = '20d') */ o.o_id, c.c_name, o.amount
FROM orders o LEFT OUTER JOIN customers c
ON o.o_customer_id = c.c_id;
