CREATE TABLE orders (id INT, k STRING, v INT, ts TIMESTAMP(3)) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/orders.jsonl', 'format' = 'json');
CREATE TABLE out_rows (id INT, v INT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT id, v FROM orders WHERE v > (SELECT AVG(v) FROM orders);
