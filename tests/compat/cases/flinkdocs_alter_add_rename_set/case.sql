CREATE TABLE MyTable (id INT, log_ts STRING, request_body STRING) WITH ('connector' = 'filesystem', 'path' = '${CASE_DIR}/elsewhere.jsonl', 'format' = 'json');
ALTER TABLE MyTable ADD `category_id` STRING COMMENT 'identifier of the category';
ALTER TABLE MyTable ADD (ts AS TO_TIMESTAMP(log_ts) AFTER log_ts);
ALTER TABLE MyTable RENAME request_body TO payload;
ALTER TABLE MyTable SET ('path' = '${CASE_DIR}/t.jsonl');
CREATE TABLE out_rows (id INT, ts TIMESTAMP(3), payload STRING, category_id STRING) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT id, ts, payload, category_id FROM MyTable;
