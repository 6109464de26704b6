CREATE TABLE t (id INT, v STRING) WITH ('connector' = 'filesystem', 'path' = '${CASE_DIR}/t.jsonl', 'format' = 'json', 'json.ignore-parse-errors' = 'true');
CREATE TABLE out_rows (id INT, a STRING, b STRING) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT a.id, a.v, b.v FROM t a JOIN t /*+ OPTIONS('path' = '${CASE_DIR}/u.jsonl') */ b ON a.id = b.id;
