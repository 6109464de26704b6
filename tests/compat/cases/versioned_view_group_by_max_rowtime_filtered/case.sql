CREATE TABLE rates (cur STRING, rate INT, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' HOUR) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/rates.jsonl', 'format' = 'json');
CREATE TABLE orders (id INT, cur STRING, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' HOUR) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/orders.jsonl', 'format' = 'json');
CREATE VIEW max_rates AS SELECT cur, MAX(rate) AS rate, MAX(ts) AS ts FROM rates GROUP BY cur HAVING MAX(rate) > 103;
CREATE TABLE out_rows (id INT, cur STRING, rate INT) WITH ('connector' = 'print');
INSERT INTO out_rows
SELECT o.id, o.cur, r.rate FROM orders AS o
LEFT JOIN max_rates FOR SYSTEM_TIME AS OF o.ts AS r ON o.cur = r.cur;
