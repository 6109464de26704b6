CREATE TABLE MyTable (
  `user_id` BIGINT,
  `price` DOUBLE,
  `quantity` DOUBLE,
  `cost` AS price * quantity
) WITH ('connector' = 'filesystem', 'path' = '${CASE_DIR}/t.jsonl', 'format' = 'json');
CREATE TABLE out_rows (user_id BIGINT, cost DOUBLE) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT user_id, cost FROM MyTable;
