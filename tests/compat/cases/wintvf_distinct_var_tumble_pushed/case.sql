CREATE TABLE ev (id INT, k STRING, v INT, d DOUBLE, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/ev.jsonl', 'format' = 'json');
CREATE TABLE out_rows (window_start TIMESTAMP(3), sp DOUBLE, vs DOUBLE, vp INT, ss INT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT window_start, STDDEV_POP(DISTINCT d), VAR_SAMP(DISTINCT d), VAR_POP(DISTINCT v), STDDEV_SAMP(DISTINCT v) FROM (SELECT * FROM TABLE(TUMBLE(TABLE ev, DESCRIPTOR(ts), INTERVAL '10' SECOND)) WHERE k IS NOT NULL) GROUP BY window_start, window_end;
