CREATE TABLE orders (id INT, cid INT, v INT) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/orders.jsonl', 'format' = 'json');
CREATE TABLE customers (id INT, name STRING) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/customers.jsonl', 'format' = 'json');
CREATE TABLE out_rows (cid INT, n BIGINT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT /*+ STATE_TTL('orders' = 'soon') */ cid, COUNT(*) FROM orders GROUP BY cid;
