CREATE TABLE ev (k STRING, s STRING, i INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/ev.jsonl', 'format' = 'json');
CREATE TABLE out_rows (k STRING, ts TIMESTAMP(3), p DOUBLE, q ARRAY<DOUBLE>) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT k, ts, PERCENTILE(i, 0.5) OVER w, PERCENTILE(i, ARRAY[0.2, 0.8]) OVER w
FROM ev WINDOW w AS (PARTITION BY k ORDER BY ts RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW);
