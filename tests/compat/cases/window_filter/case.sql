CREATE TABLE w (id INT, k STRING, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '5' SECOND) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/w.jsonl', 'format' = 'json');
CREATE TABLE out_rows (ws TIMESTAMP(3), we TIMESTAMP(3), pos BIGINT, sneg INT, d BIGINT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT window_start, window_end, COUNT(*) FILTER (WHERE v > 0), SUM(v) FILTER (WHERE v < 0), COUNT(DISTINCT k) FILTER (WHERE v IS NOT NULL) FROM TABLE(TUMBLE(TABLE w, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY window_start, window_end;
