CREATE TABLE orders (id INT, k STRING, amount INT, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/orders.jsonl', 'format' = 'json');
CREATE TABLE out_rows (k STRING, id INT, ts TIMESTAMP(3)) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT k, id, ts FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY ts) AS rn FROM orders)
WHERE rn = 1;
