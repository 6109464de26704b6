CREATE TABLE t (id INT, g STRING, k INT, v INT) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/t.jsonl', 'format' = 'json');
CREATE TABLE out_rows (gid BIGINT, n BIGINT, total BIGINT) WITH ('connector' = 'print');
INSERT INTO out_rows WITH r AS (SELECT g, k, COUNT(*) AS c, GROUPING_ID(g, k) AS gid FROM t GROUP BY GROUPING SETS ((g, k), (g), ())) SELECT gid, COUNT(*) AS n, SUM(c) AS total FROM r GROUP BY gid;
