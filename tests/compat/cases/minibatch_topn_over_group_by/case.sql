SET 'table.exec.mini-batch.enabled' = 'true';
SET 'table.exec.mini-batch.allow-latency' = '1 s';
SET 'table.exec.mini-batch.size' = '50';
CREATE TABLE t (id INT, k STRING, v INT, s STRING) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/t.jsonl', 'format' = 'json');
CREATE TABLE out_rows (k STRING, sv INT, rn BIGINT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT k, sv, rn FROM (SELECT k, sv, ROW_NUMBER() OVER (ORDER BY sv DESC, k) AS rn FROM (SELECT k, SUM(v) AS sv FROM t GROUP BY k)) WHERE rn <= 3;
