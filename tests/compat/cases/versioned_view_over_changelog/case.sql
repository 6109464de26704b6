CREATE TABLE rates (id INT, cur STRING, rate INT, ts TIMESTAMP(3), PRIMARY KEY (id) NOT ENFORCED,
  WATERMARK FOR ts AS ts - INTERVAL '1' HOUR) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/rates.jsonl', 'format' = 'debezium-json');
CREATE TABLE orders (id INT, cur STRING, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' HOUR) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/orders.jsonl', 'format' = 'json');
CREATE VIEW versioned_rates AS
SELECT cur, rate, ts FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY cur ORDER BY ts DESC) AS rn FROM rates)
WHERE rn = 1;
CREATE TABLE out_rows (id INT, cur STRING, rate INT, rts TIMESTAMP(3)) WITH ('connector' = 'print');
INSERT INTO out_rows
SELECT o.id, o.cur, r.rate, r.ts FROM orders AS o
LEFT JOIN versioned_rates FOR SYSTEM_TIME AS OF o.ts AS r ON o.cur = r.cur;
