CREATE TABLE Orders (order_id INT, users STRING, amount INT, product STRING, price DOUBLE, tax DOUBLE, order_time TIMESTAMP(3),
  WATERMARK FOR order_time AS order_time - INTERVAL '1' SECOND) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/orders.jsonl', 'format' = 'json');
CREATE TABLE out_rows (order_id INT, amount INT, s INT) WITH ('connector' = 'print');
INSERT INTO out_rows
SELECT order_id, amount, SUM(amount) OVER (PARTITION BY product ORDER BY order_time ROWS BETWEEN 10 PRECEDING AND CURRENT ROW) AS s
FROM Orders;
