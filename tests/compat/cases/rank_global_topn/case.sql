CREATE TABLE orders (id INT, k STRING, amount INT, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/orders.jsonl', 'format' = 'json');
CREATE TABLE out_rows (id INT, amount INT, rn BIGINT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT id, amount, rn FROM (
  SELECT id, amount, ROW_NUMBER() OVER (ORDER BY amount DESC, id ASC) AS rn FROM orders)
WHERE rn <= 3;
