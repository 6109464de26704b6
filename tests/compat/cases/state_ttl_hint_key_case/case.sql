CREATE TABLE Orders (id INT, cid INT, v INT) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/orders.jsonl', 'format' = 'json');
CREATE TABLE out_rows (cid INT, n BIGINT, total INT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT /*+ STATE_TTL('orders' = '1h') */ cid, COUNT(*), SUM(v) FROM Orders GROUP BY cid;
