CREATE TABLE orders (id INT, k STRING, amount INT, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/orders.jsonl', 'format' = 'json');
CREATE TABLE out_rows (k STRING, id INT, r BIGINT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT * FROM (
  SELECT k, id, DENSE_RANK() OVER (PARTITION BY k ORDER BY amount DESC) AS r FROM orders)
WHERE r <= 2;
