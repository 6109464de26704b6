CREATE TABLE orders (id INT, cid INT, v INT) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/orders.jsonl', 'format' = 'json');
SET 'table.exec.state.ttl' = '1 h';
CREATE TABLE out_rows (cid INT, n BIGINT, c BIGINT, s INT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT cid, COUNT(DISTINCT v), COUNT(*), SUM(v) FROM orders GROUP BY cid;
