CREATE TABLE orders (id INT, k STRING, amount INT, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/orders.jsonl', 'format' = 'json');
CREATE TABLE out_rows (id INT, k STRING, amount INT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT id, k, amount FROM orders
QUALIFY ROW_NUMBER() OVER (PARTITION BY k ORDER BY ts DESC) = 1;
