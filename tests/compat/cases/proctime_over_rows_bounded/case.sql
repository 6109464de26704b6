CREATE TABLE ev (k STRING, v INT, proc AS PROCTIME()) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/events.jsonl', 'format' = 'json');
CREATE TABLE out_rows (k STRING, v INT, s INT, n BIGINT, lo INT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT k, v, SUM(v) OVER w, COUNT(v) OVER w, MIN(v) OVER w FROM ev
WINDOW w AS (PARTITION BY k ORDER BY proc ROWS BETWEEN 1 PRECEDING AND CURRENT ROW);
