SET 'table.exec.mini-batch.enabled' = 'true';
SET 'table.exec.mini-batch.allow-latency' = '1 s';
SET 'table.exec.mini-batch.size' = '50';
SET 'table.optimizer.agg-phase-strategy' = 'TWO_PHASE';
CREATE TABLE t (id INT, k STRING, v INT, s STRING) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/t.jsonl', 'format' = 'json');
CREATE TABLE out_rows (k STRING, c BIGINT, sv INT, mx INT, mn INT, av INT, cd BIGINT, ls STRING, fv INT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT k, COUNT(*), SUM(v), MAX(v), MIN(v), AVG(v), COUNT(DISTINCT s), LISTAGG(DISTINCT s), FIRST_VALUE(v) FROM t GROUP BY k;
