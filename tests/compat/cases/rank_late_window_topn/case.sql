CREATE TABLE orders (id INT, k STRING, amount INT, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/orders.jsonl', 'format' = 'json');
CREATE TABLE out_rows (window_start TIMESTAMP(3), id INT, amount INT, rn BIGINT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT window_start, id, amount, rn FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY amount DESC) AS rn
  FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(ts), INTERVAL '10' SECOND)))
WHERE rn <= 2;
