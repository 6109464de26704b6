CREATE TABLE orders (id INT, cur STRING, amount INT, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '2' SECOND) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/orders.jsonl', 'format' = 'json');
CREATE TABLE rates (cur STRING, rate INT, ts TIMESTAMP(3), PRIMARY KEY (cur) NOT ENFORCED,
  WATERMARK FOR ts AS ts - INTERVAL '0' SECOND) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/rates.jsonl', 'format' = 'json');
CREATE TABLE out_rows (ws TIMESTAMP(3), total BIGINT, n BIGINT) WITH ('connector' = 'print');
CREATE VIEW priced AS SELECT o.ts, o.amount * r.rate AS price FROM orders AS o JOIN rates FOR SYSTEM_TIME AS OF o.ts AS r ON o.cur = r.cur;
INSERT INTO out_rows SELECT window_start, SUM(CAST(price AS BIGINT)), COUNT(*) FROM TABLE(TUMBLE(TABLE priced, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY window_start, window_end;
