CREATE TABLE ev (k STRING, s STRING, i INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/ev.jsonl', 'format' = 'json');
CREATE TABLE out_rows (k STRING, window_start TIMESTAMP(3), window_end TIMESTAMP(3), p DOUBLE) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT k, window_start, window_end, PERCENTILE(i, 0.5)
FROM TABLE(HOP(TABLE ev, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '10' SECOND)) GROUP BY k, window_start, window_end
UNION ALL
SELECT k, window_start, window_end, PERCENTILE(i, 0.4)
FROM TABLE(SESSION(TABLE ev PARTITION BY k, DESCRIPTOR(ts), INTERVAL '3' SECOND)) GROUP BY k, window_start, window_end;
