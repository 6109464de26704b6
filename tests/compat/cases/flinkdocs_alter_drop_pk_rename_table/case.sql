CREATE TABLE MyTable (id INT, log_ts STRING, PRIMARY KEY (id) NOT ENFORCED) WITH ('connector' = 'filesystem', 'path' = '${CASE_DIR}/t.jsonl', 'format' = 'json');
ALTER TABLE MyTable DROP PRIMARY KEY;
ALTER TABLE MyTable RENAME TO Renamed;
CREATE TABLE out_rows (id INT, log_ts STRING) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT * FROM Renamed;
