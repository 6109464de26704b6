CREATE TABLE ev (g INT, k STRING, x INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/ev.jsonl', 'format' = 'json');
CREATE TABLE out_rows (g INT, window_start TIMESTAMP(3), o STRING) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT g, window_start, JSON_OBJECTAGG(KEY k VALUE x)
FROM TABLE(TUMBLE(TABLE ev, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY g, window_start, window_end;
