CREATE TABLE ev (id INT, k STRING, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/ev.jsonl', 'format' = 'json');
CREATE TABLE out_rows (window_start TIMESTAMP(3), window_end TIMESTAMP(3), k STRING, n BIGINT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT window_start, window_end, k, COUNT(*)
FROM TABLE(TUMBLE(TABLE ev, DESCRIPTOR(ts), INTERVAL '10' SECOND)) WHERE window_start > ts - INTERVAL '8' SECOND
GROUP BY window_end, GROUPING SETS ((window_start, k), (k));
