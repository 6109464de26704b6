CREATE TABLE ev (id INT, k STRING, v INT, d DOUBLE, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/ev.jsonl', 'format' = 'json');
CREATE TABLE out_rows (k STRING, window_start TIMESTAMP(3), window_end TIMESTAMP(3), a DOUBLE, b INT, c DOUBLE, e DOUBLE) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT k, window_start, window_end, VAR_SAMP(DISTINCT d) FILTER (WHERE v > 0), STDDEV_POP(DISTINCT v) FILTER (WHERE d <> 0),
  VAR_POP(DISTINCT d / 0.0) FILTER (WHERE v < 5), STDDEV_SAMP(DISTINCT CASE WHEN v > 3 THEN CAST('NaN' AS DOUBLE) ELSE d END)
  FROM TABLE(SESSION(TABLE ev PARTITION BY k, DESCRIPTOR(ts), INTERVAL '4' SECOND)) GROUP BY k, window_start, window_end;
