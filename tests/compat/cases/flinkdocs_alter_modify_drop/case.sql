CREATE TABLE MyTable (id INT, log_ts STRING, request_body STRING, extra INT) WITH ('connector' = 'filesystem', 'path' = '${CASE_DIR}/t.jsonl', 'format' = 'json');
ALTER TABLE MyTable MODIFY request_body STRING COMMENT 'the body' FIRST;
ALTER TABLE MyTable DROP extra;
CREATE TABLE out_rows (request_body STRING, id INT, log_ts STRING) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT * FROM MyTable;
