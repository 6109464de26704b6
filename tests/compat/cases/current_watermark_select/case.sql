CREATE TABLE ev (id INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/ev.jsonl', 'format' = 'json');
CREATE TABLE out_rows (id INT, ts TIMESTAMP(3), wm TIMESTAMP(3), late BOOLEAN) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT id, ts, CURRENT_WATERMARK(ts), ts <= CURRENT_WATERMARK(ts) FROM ev;
