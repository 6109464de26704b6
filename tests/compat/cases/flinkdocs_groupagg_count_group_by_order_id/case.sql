CREATE TABLE Orders (order_id INT, users STRING, amount INT, product STRING, price DOUBLE, tax DOUBLE, order_time TIMESTAMP(3),
  WATERMARK FOR order_time AS order_time - INTERVAL '1' SECOND) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/orders.jsonl', 'format' = 'json');
CREATE TABLE out_rows (c BIGINT) WITH ('connector' = 'print');
INSERT INTO out_rows
SELECT COUNT(*)
FROM Orders
GROUP BY order_id;
