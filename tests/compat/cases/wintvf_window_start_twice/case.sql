CREATE TABLE ev (id INT, k STRING, v INT, d DOUBLE, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/ev.jsonl', 'format' = 'json');
CREATE TABLE out_rows (window_start TIMESTAMP(3), window_end TIMESTAMP(3), ws2 TIMESTAMP(3), n BIGINT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT window_start, window_end, ws2, COUNT(*) FROM (SELECT window_start, window_end, window_start AS ws2, v
  FROM TABLE(HOP(TABLE ev, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '10' SECOND)) WHERE window_end > TIMESTAMP '2024-01-01 00:00:10') GROUP BY window_start, window_end, ws2;
