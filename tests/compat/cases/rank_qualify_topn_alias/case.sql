CREATE TABLE orders (id INT, k STRING, amount INT, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/orders.jsonl', 'format' = 'json');
CREATE TABLE out_rows (k STRING, id INT, amount INT, rn BIGINT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT k, id, amount, ROW_NUMBER() OVER (PARTITION BY k ORDER BY amount DESC, id) AS rn
FROM orders WHERE amount > 10
QUALIFY rn <= 2;
