CREATE TABLE ev (id INT, k STRING, v INT, d DOUBLE, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/ev.jsonl', 'format' = 'json');
CREATE TABLE out_rows (window_start TIMESTAMP(3), window_end TIMESTAMP(3), n BIGINT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT window_start, window_end, COUNT(*) FROM (SELECT window_end AS window_start, window_start AS window_end, v
  FROM TABLE(TUMBLE(TABLE ev, DESCRIPTOR(ts), INTERVAL '10' SECOND)) WHERE v > 0) GROUP BY window_start, window_end;
