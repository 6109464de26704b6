CREATE TABLE MyTable (
  `user_id` BIGINT,
  `price` DOUBLE,
  `fsize` BIGINT METADATA FROM 'file.size' VIRTUAL,
  `fname` STRING METADATA FROM 'file.name'
) WITH ('connector' = 'filesystem', 'path' = '${CASE_DIR}/t.jsonl', 'format' = 'json');
CREATE TABLE out_rows (user_id BIGINT, fsize BIGINT, fname STRING) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT user_id, fsize, fname FROM MyTable;
