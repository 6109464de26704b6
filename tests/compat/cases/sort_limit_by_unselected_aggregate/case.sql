CREATE TABLE t (id INT, k INT, v INT, ts TIMESTAMP(3)) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/t.jsonl', 'format' = 'json');
CREATE TABLE out_rows (k INT, c BIGINT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT k, COUNT(*) AS c FROM t GROUP BY k ORDER BY SUM(v) DESC, k LIMIT 2;
