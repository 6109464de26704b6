SET 'table.exec.mini-batch.enabled' = 'true';
SET 'table.exec.mini-batch.allow-latency' = '1 s';
CREATE TABLE t (id INT, k STRING, v INT, s STRING) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/t.jsonl', 'format' = 'json');
CREATE TABLE out_rows (k STRING, c BIGINT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT k, COUNT(*) FROM t GROUP BY k;
