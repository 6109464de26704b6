CREATE TABLE orders (id INT, cur STRING, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '0' SECOND) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/orders.jsonl', 'format' = 'json');
CREATE TABLE rates (cur STRING, rate INT, ts TIMESTAMP(3), PRIMARY KEY (cur) NOT ENFORCED,
  WATERMARK FOR ts AS ts - INTERVAL '0' SECOND) WITH (
  'connector' = 'upsert-kafka', 'topic' = '${TOPIC}', 'properties.bootstrap.servers' = '${BOOTSTRAP}',
  'scan.bounded.mode' = 'latest-offset', 'key.format' = 'json', 'value.format' = 'json');
CREATE TABLE out_rows (id INT, cur STRING, rate INT, rts TIMESTAMP(3)) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT o.id, o.cur, r.rate, r.ts FROM orders AS o LEFT JOIN rates FOR SYSTEM_TIME AS OF o.ts AS r ON o.cur = r.cur;
