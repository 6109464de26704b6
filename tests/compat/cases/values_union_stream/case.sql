CREATE TABLE t (id BIGINT, name STRING) WITH ('connector' = 'filesystem', 'path' = '${CASE_DIR}/t.jsonl', 'format' = 'json');
CREATE TABLE out_rows (id BIGINT, name STRING) WITH ('connector' = 'print');
INSERT INTO out_rows
SELECT id, name FROM t
UNION ALL
VALUES (100, 'v1'), (101, 'v2');
