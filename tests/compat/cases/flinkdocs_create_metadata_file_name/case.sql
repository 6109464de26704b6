CREATE TABLE MyTable (
  `user_id` BIGINT,
  `price` DOUBLE,
  `fname` STRING METADATA FROM 'file.name' VIRTUAL
) WITH ('connector' = 'filesystem', 'path' = '${CASE_DIR}/t.jsonl', 'format' = 'json');
CREATE TABLE out_rows (user_id BIGINT, fname STRING) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT user_id, fname FROM MyTable;
