CREATE TABLE t (id INT, v STRING) WITH ('connector' = 'filesystem', 'path' = '${CASE_DIR}/t.jsonl', 'format' = 'json');
CREATE TABLE t2 LIKE t /*+ OPTIONS('json.ignore-parse-errors' = 'true') */;
CREATE TABLE out_rows (id INT, v STRING) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT id, v FROM t2;
