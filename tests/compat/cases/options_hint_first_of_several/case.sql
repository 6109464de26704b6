CREATE TABLE t (id INT, v STRING) WITH ('connector' = 'filesystem', 'path' = '${CASE_DIR}/t.jsonl', 'format' = 'json');
CREATE TABLE out_rows (id INT, v STRING) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT x.id, x.v FROM t /*+ options('json.ignore-parse-errors' = 'false', 'json.ignore-parse-errors' = 'true'), OPTIONS('json.ignore-parse-errors' = 'false') */ AS x;
