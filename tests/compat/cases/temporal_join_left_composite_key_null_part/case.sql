CREATE TABLE orders (id INT, cur STRING, region STRING, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '0' SECOND) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/orders.jsonl', 'format' = 'json');
CREATE TABLE rates (cur STRING, region STRING, rate INT, ts TIMESTAMP(3), PRIMARY KEY (cur, region) NOT ENFORCED,
  WATERMARK FOR ts AS ts - INTERVAL '0' SECOND) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/rates.jsonl', 'format' = 'json');
CREATE TABLE out_rows (id INT, cur STRING, region STRING, rate INT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT o.id, o.cur, o.region, r.rate FROM orders AS o LEFT JOIN rates FOR SYSTEM_TIME AS OF o.ts AS r ON o.cur = r.cur AND o.region = r.region;
