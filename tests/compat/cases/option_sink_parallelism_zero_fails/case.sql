CREATE TABLE orders (id INT, item STRING, qty INT) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/orders.jsonl', 'format' = 'json');
CREATE TABLE out_rows (id INT, item STRING) WITH ('connector' = 'print', 'sink.parallelism' = '0');
INSERT INTO out_rows SELECT id, item FROM orders;
