CREATE TABLE t (id INT, g STRING, k INT, v INT) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/t.jsonl', 'format' = 'json');
CREATE TABLE out_rows (g STRING, k INT, m INT, gid BIGINT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT g, k, MAX(v) AS m, GROUPING_ID(k, g) AS gid FROM t WHERE id > 1 GROUP BY CUBE (g, k) HAVING COUNT(*) > 1;
