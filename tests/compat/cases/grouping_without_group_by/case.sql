CREATE TABLE t (id INT, g STRING, k INT, v INT) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/t.jsonl', 'format' = 'json');
CREATE TABLE out_rows (gg BIGINT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT GROUPING(g) AS gg FROM t;
