CREATE TABLE Orders (order_id INT, users STRING, amount INT, product STRING, price DOUBLE, tax DOUBLE, order_time TIMESTAMP(3),
  WATERMARK FOR order_time AS order_time - INTERVAL '1' SECOND) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/orders.jsonl', 'format' = 'json');
CREATE TABLE out_rows (order_id INT, order_time TIMESTAMP(3), amount INT, sum_amount INT, avg_amount INT) WITH ('connector' = 'print');
INSERT INTO out_rows
SELECT order_id, order_time, amount,
  SUM(amount) OVER w AS sum_amount,
  AVG(amount) OVER w AS avg_amount
FROM Orders
WINDOW w AS (
  PARTITION BY product
  ORDER BY order_time
  RANGE BETWEEN INTERVAL '1' HOUR PRECEDING AND CURRENT ROW);
