CREATE TABLE rates (cur STRING, rate INT, ts TIMESTAMP(3), PRIMARY KEY (cur) NOT ENFORCED,
  WATERMARK FOR ts AS ts - INTERVAL '1' HOUR) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/rates.jsonl', 'format' = 'json');
CREATE TABLE orders (id INT, cur STRING, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' HOUR) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/orders.jsonl', 'format' = 'json');
CREATE VIEW rates_x10 AS SELECT cur, rate * 10 AS rate10, ts FROM rates WHERE rate > 1;
CREATE TABLE out_rows (id INT, cur STRING, rate INT, rts TIMESTAMP(3)) WITH ('connector' = 'print');
INSERT INTO out_rows
SELECT o.id, o.cur, r.rate10, r.ts FROM orders AS o
LEFT JOIN rates_x10 FOR SYSTEM_TIME AS OF o.ts AS r ON o.cur = r.cur;
