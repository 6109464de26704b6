CREATE TABLE t (id INT, v STRING) WITH ('connector' = 'filesystem', 'path' = '${CASE_DIR}/t.jsonl', 'format' = 'json');
CREATE TABLE out_rows (id INT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT id FROM t /*+ STATE_TTL('t' = 'soon') */;
