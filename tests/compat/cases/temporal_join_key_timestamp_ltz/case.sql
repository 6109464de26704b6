SET 'table.local-time-zone' = 'America/New_York';
CREATE TABLE orders (id INT, k TIMESTAMP(3), ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '0' SECOND) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/orders.jsonl', 'format' = 'json');
CREATE TABLE rates (k TIMESTAMP_LTZ(3), rate INT, ts TIMESTAMP(3), PRIMARY KEY (k) NOT ENFORCED,
  WATERMARK FOR ts AS ts - INTERVAL '0' SECOND) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/rates.jsonl', 'format' = 'json');
CREATE TABLE out_rows (id INT, rate INT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT o.id, r.rate FROM orders AS o JOIN rates FOR SYSTEM_TIME AS OF o.ts AS r ON o.k = r.k;
