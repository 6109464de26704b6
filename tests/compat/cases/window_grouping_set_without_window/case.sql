CREATE TABLE ev (g STRING, k INT, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/ev.jsonl', 'format' = 'json');
CREATE TABLE out_rows (window_start TIMESTAMP(3), g STRING, c BIGINT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT window_start, g, COUNT(*) AS c FROM TABLE(TUMBLE(TABLE ev, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY window_end, GROUPING SETS ((window_start, g), (g));
