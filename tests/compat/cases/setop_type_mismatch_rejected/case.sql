CREATE TABLE orders (id INT, k STRING, amount INT, price DECIMAL(10, 2), ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/orders.jsonl', 'format' = 'json');
CREATE TABLE out_rows (k INT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT amount FROM orders EXCEPT SELECT amount > 20 FROM orders;
