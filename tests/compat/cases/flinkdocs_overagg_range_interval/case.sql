CREATE TABLE Orders (order_id INT, users STRING, amount INT, product STRING, price DOUBLE, tax DOUBLE, order_time TIMESTAMP(3),
  WATERMARK FOR order_time AS order_time - INTERVAL '1' SECOND) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/orders.jsonl', 'format' = 'json');
CREATE TABLE out_rows (order_id INT, order_time TIMESTAMP(3), amount INT, one_hour_prod_amount_sum INT) WITH ('connector' = 'print');
INSERT INTO out_rows
SELECT order_id, order_time, amount,
  SUM(amount) OVER (
    PARTITION BY product
    ORDER BY order_time
    RANGE BETWEEN INTERVAL '1' HOUR PRECEDING AND CURRENT ROW
  ) AS one_hour_prod_amount_sum
FROM Orders;
