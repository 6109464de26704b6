CREATE TABLE ev (k STRING, v INT, proc AS PROCTIME()) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/events.jsonl', 'format' = 'json');
CREATE TABLE out_rows (k STRING, v INT, s INT, n BIGINT, hi INT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT k, v, SUM(v) OVER (PARTITION BY k ORDER BY proc),
  COUNT(*) OVER (PARTITION BY k ORDER BY proc), MAX(v) OVER (PARTITION BY k ORDER BY proc) FROM ev;
