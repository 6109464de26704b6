CREATE TABLE orders (id INT, item STRING, qty INT) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/orders.jsonl', 'format' = 'json');
CREATE TABLE out_rows (item STRING, total INT) WITH ('connector' = 'print', 'sink.parallelism' = '2');
INSERT INTO out_rows SELECT item, SUM(qty) FROM orders GROUP BY item;
