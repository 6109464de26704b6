CREATE TABLE s (id INT, b INT) WITH ('connector' = 'filesystem', 'path' = '${CASE_DIR}/s.jsonl', 'format' = 'json');
CREATE TABLE out_rows (id INT, b INT NOT NULL) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT id, b FROM s;
