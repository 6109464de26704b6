CREATE TABLE MyTable (id INT, log_ts STRING) WITH ('connector' = 'filesystem', 'path' = '${CASE_DIR}/t.jsonl', 'format' = 'json');
ALTER TABLE MyTable ADD `id` BIGINT;
CREATE TABLE out_rows (id INT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT id FROM MyTable;
