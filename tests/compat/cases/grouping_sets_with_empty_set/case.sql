CREATE TABLE t (id INT, g STRING, k INT, v INT) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/t.jsonl', 'format' = 'json');
CREATE TABLE out_rows (g STRING, k INT, c BIGINT, s INT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT g, k, COUNT(*) AS c, SUM(v) AS s FROM t GROUP BY GROUPING SETS ((g, k), (g), ());
