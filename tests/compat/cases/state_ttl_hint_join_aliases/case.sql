CREATE TABLE orders (id INT, cid INT, v INT) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/orders.jsonl', 'format' = 'json');
CREATE TABLE customers (id INT, name STRING) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/customers.jsonl', 'format' = 'json');
CREATE TABLE out_rows (id INT, name STRING) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT /*+ STATE_TTL('o' = '1d', 'c' = '12h') */ o.id, c.name FROM orders o JOIN customers c ON o.cid = c.id;
