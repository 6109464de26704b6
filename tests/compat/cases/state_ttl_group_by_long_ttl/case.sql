SET 'table.exec.state.ttl' = '1 h';
CREATE TABLE orders (id INT, k STRING, v INT, ts TIMESTAMP(3)) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/orders.jsonl', 'format' = 'json');
CREATE TABLE out_rows (k STRING, n BIGINT, total INT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT k, COUNT(*), SUM(v) FROM orders GROUP BY k;
