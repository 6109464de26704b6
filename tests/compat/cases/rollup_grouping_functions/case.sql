CREATE TABLE t (id INT, g STRING, k INT, v INT) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/t.jsonl', 'format' = 'json');
CREATE TABLE out_rows (g STRING, k INT, c BIGINT, gg BIGINT, gid BIGINT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT g, k, COUNT(*) AS c, GROUPING(g) AS gg, GROUPING_ID(g, k) AS gid FROM t GROUP BY ROLLUP (g, k);
