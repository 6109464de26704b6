CREATE TABLE ev (id INT, k STRING, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/ev.jsonl', 'format' = 'json');
CREATE TABLE out_rows (id INT, k STRING, v INT, window_start TIMESTAMP(3), window_end TIMESTAMP(3), window_time TIMESTAMP(3)) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT id, k, v, window_start, window_end, window_time FROM TABLE(SESSION(TABLE ev PARTITION BY k, DESCRIPTOR(ts), INTERVAL '4' SECOND));
