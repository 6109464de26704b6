CREATE TABLE w (id INT, k STRING, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '5' SECOND) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/w.jsonl', 'format' = 'json');
CREATE TABLE out_rows (n BIGINT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT DISTINCT COUNT(*) FROM TABLE(TUMBLE(TABLE w, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY k, window_start, window_end;
