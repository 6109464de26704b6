CREATE TABLE orders (id INT, k STRING, amount INT, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '5' SECOND) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/orders.jsonl', 'format' = 'json');
CREATE TABLE out_rows (k STRING, total INT, n BIGINT, rn BIGINT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT * FROM (
  SELECT k, total, n, ROW_NUMBER() OVER (ORDER BY total DESC, n ASC) AS rn
  FROM (SELECT k, CAST(SUM(amount) AS INT) AS total, COUNT(*) AS n FROM orders GROUP BY k))
WHERE rn <= 2;
