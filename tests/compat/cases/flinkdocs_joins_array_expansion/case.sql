CREATE TABLE Orders (order_id INT, tags ARRAY<STRING>) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/orders.jsonl', 'format' = 'json');
CREATE TABLE out_rows (order_id INT, tag STRING) WITH ('connector' = 'print');
INSERT INTO out_rows
SELECT order_id, tag
FROM Orders CROSS JOIN UNNEST(tags) AS t (tag);
