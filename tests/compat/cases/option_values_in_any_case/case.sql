SET 'table.exec.mini-batch.enabled' = 'TRUE';
SET 'table.exec.mini-batch.allow-latency' = 'PT1S';
SET 'table.exec.mini-batch.size' = '+100';
SET 'table.exec.state.ttl' = '1 H';
CREATE TABLE orders (id INT, cid INT, v INT) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/orders.jsonl', 'format' = 'json',
  'json.ignore-parse-errors' = 'True', 'json.fail-on-missing-field' = 'FALSE');
CREATE TABLE out_rows (cid INT, n BIGINT, total INT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT /*+ STATE_TTL('orders' = 'PT2H') */ cid, COUNT(*), SUM(v) FROM orders GROUP BY cid;
