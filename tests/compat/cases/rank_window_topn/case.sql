CREATE TABLE orders (id INT, k STRING, amount INT, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/orders.jsonl', 'format' = 'json');
CREATE TABLE out_rows (window_start TIMESTAMP(3), window_end TIMESTAMP(3), k STRING, total INT, rn BIGINT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT * FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY total DESC) AS rn FROM (
    SELECT window_start, window_end, k, CAST(SUM(amount) AS INT) AS total
    FROM TABLE(TUMBLE(TABLE orders, DESCRIPTOR(ts), INTERVAL '10' SECOND))
    GROUP BY window_start, window_end, k))
WHERE rn <= 2;
