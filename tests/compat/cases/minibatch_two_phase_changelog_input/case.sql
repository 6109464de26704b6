SET 'table.exec.mini-batch.enabled' = 'true';
SET 'table.exec.mini-batch.allow-latency' = '1 s';
SET 'table.exec.mini-batch.size' = '50';
SET 'table.optimizer.agg-phase-strategy' = 'TWO_PHASE';
CREATE TABLE t (id INT, k STRING, v INT, s STRING) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/t.jsonl', 'format' = 'debezium-json');
CREATE TABLE out_rows (k STRING, c BIGINT, sv INT, mx INT, cd BIGINT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT k, COUNT(*), SUM(v), MAX(v), COUNT(DISTINCT v) FROM t GROUP BY k;
