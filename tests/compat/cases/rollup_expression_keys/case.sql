CREATE TABLE t (id INT, g STRING, k INT, v INT) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/t.jsonl', 'format' = 'json');
CREATE TABLE out_rows (ug STRING, km INT, c BIGINT, s INT, gg BIGINT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT UPPER(g) AS ug, k % 3 AS km, COUNT(*) AS c, SUM(v) AS s, GROUPING(k % 3) AS gg FROM t GROUP BY ROLLUP (UPPER(g), k % 3);
