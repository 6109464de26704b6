CREATE TABLE orders (id INT, cid INT, v INT) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/orders.jsonl', 'format' = 'json');
CREATE TABLE customers (id INT, name STRING) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/customers.jsonl', 'format' = 'json');
SET 'table.exec.state.ttl' = '1 ms';
CREATE TABLE out_rows (id INT, name STRING) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT /*+ STATE_TTL('orders' = '1d', 'customers' = '1d') */ orders.id, customers.name FROM orders LEFT JOIN customers ON orders.cid = customers.id;
