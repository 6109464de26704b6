CREATE TABLE orders (id INT, cid INT, v INT) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/orders.jsonl', 'format' = 'json');
CREATE TABLE customers (id INT, name STRING) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/customers.jsonl', 'format' = 'json');
CREATE TABLE out_rows (id INT, v INT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT /*+ STATE_TTL('orders' = '1h') */ id, v FROM orders;
