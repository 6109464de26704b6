CREATE TABLE orders (id INT, item STRING, qty INT) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/orders.jsonl', 'format' = 'json',
  'sink.parallelism' = '0');
CREATE TABLE out_rows (id INT, item STRING, qty INT) WITH ('connector' = 'print', 'sink.parallelism' = '1');
INSERT INTO out_rows SELECT id, item, qty FROM orders WHERE qty > 2;
