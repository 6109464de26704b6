CREATE TABLE t (id INT, k INT, v INT, ts TIMESTAMP(3)) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/t.jsonl', 'format' = 'json');
CREATE TABLE out_rows (k INT, c BIGINT, s INT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT v % 4 AS k, COUNT(*) AS c, SUM(id) AS s FROM t GROUP BY v % 4 ORDER BY c DESC, s LIMIT 2;
