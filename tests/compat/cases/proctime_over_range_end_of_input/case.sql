CREATE TABLE ev (k STRING, v INT, proc AS PROCTIME()) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/events.jsonl', 'format' = 'json');
CREATE TABLE out_rows (k STRING, v INT, n BIGINT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT k, v, COUNT(v) OVER (PARTITION BY k ORDER BY proc
  RANGE BETWEEN INTERVAL '1' HOUR PRECEDING AND CURRENT ROW) FROM ev;
