CREATE TABLE t (id INT, g STRING, k INT, v INT) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/t.jsonl', 'format' = 'json');
CREATE TABLE out_rows (g STRING, c BIGINT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT g, COUNT(*) AS c FROM t GROUP BY GROUPING SETS ((g), (g), ());
