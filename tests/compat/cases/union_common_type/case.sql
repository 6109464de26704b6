CREATE TABLE s (id INT, v INT, b BIGINT) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/s.jsonl', 'format' = 'json');
CREATE TABLE t (id INT, d DECIMAL(10, 2), x DOUBLE) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/t.jsonl', 'format' = 'json');
CREATE TABLE out_rows (v DECIMAL(12, 2), b DOUBLE, i BIGINT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT v, b, id FROM s UNION ALL SELECT d, x, CAST(id AS BIGINT) FROM t
UNION SELECT d, id, b FROM (SELECT d, id, CAST(7 AS BIGINT) AS b FROM t);
