CREATE TABLE ev (k STRING, s STRING, i INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/ev.jsonl', 'format' = 'json');
CREATE TABLE out_rows (k STRING, ts TIMESTAMP(3), p DOUBLE, pf DOUBLE) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT k, ts, PERCENTILE(i, 0.5) OVER w, PERCENTILE(i, 0.5, i) OVER w
FROM ev WINDOW w AS (PARTITION BY k ORDER BY ts ROWS BETWEEN 2 PRECEDING AND CURRENT ROW);
