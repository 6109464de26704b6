CREATE TABLE t (k TIME(3), t TIME, v INT) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/in.jsonl', 'format' = 'json');
CREATE TABLE out_rows (k TIME(3), n BIGINT, lo TIME, hi TIME, d BIGINT, sv INT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT k, COUNT(*), MIN(t), MAX(t), COUNT(DISTINCT t), SUM(v) FROM t GROUP BY k;
