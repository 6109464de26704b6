CREATE TABLE ev (id INT, k STRING, v INT, d DOUBLE, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/ev.jsonl', 'format' = 'json');
CREATE TABLE out_rows (window_start TIMESTAMP(3), window_end TIMESTAMP(3), n BIGINT, lo TIMESTAMP(3), hi TIMESTAMP(3)) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT window_start, window_end, COUNT(*), MIN(ts), MAX(ts) FROM (
  SELECT window_start, window_end, ts + INTERVAL '1' HOUR AS ts, v FROM TABLE(TUMBLE(TABLE ev, DESCRIPTOR(ts), INTERVAL '10' SECOND)) WHERE v > 0) GROUP BY window_start, window_end;
