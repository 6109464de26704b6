CREATE TABLE t (id INT, g STRING, k INT, v INT) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/t.jsonl', 'format' = 'json');
CREATE TABLE out_rows (g STRING, k INT, c BIGINT, gk BIGINT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT g, k, COUNT(*) AS c, GROUPING(k) AS gk FROM t GROUP BY CUBE (g, k) HAVING GROUPING(k) = 1 OR k IS NULL;
