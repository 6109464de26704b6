CREATE TABLE t (id BIGINT, k INT) WITH ('connector' = 'filesystem', 'path' = '${CASE_DIR}/t.jsonl', 'format' = 'json');
CREATE TEMPORARY VIEW labels AS SELECT * FROM (VALUES (1, 'small'), (2, 'medium'), (3, 'large')) AS v(k, label);
CREATE TEMPORARY VIEW raw_values AS VALUES (1, 10), (3, 30);
CREATE TABLE out_rows (id BIGINT, label STRING, weight INT) WITH ('connector' = 'print');
INSERT INTO out_rows
SELECT t.id, l.label, w.EXPR$1 FROM t JOIN labels AS l ON t.k = l.k LEFT JOIN raw_values AS w ON t.k = w.EXPR$0;
