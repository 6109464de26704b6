CREATE TABLE MyTable (
  `user_id` BIGINT,
  `price` DOUBLE,
  `quantity` DOUBLE,
  `cost` AS price * quanitity  -- evaluate expression and supply the result to queries
) WITH ('connector' = 'filesystem', 'path' = '${CASE_DIR}/t.jsonl', 'format' = 'json');
CREATE TABLE out_rows (user_id BIGINT, cost DOUBLE) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT user_id, cost FROM MyTable;
