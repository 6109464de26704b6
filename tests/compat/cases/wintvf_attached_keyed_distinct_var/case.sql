CREATE TABLE ev (id INT, k STRING, v INT, d DOUBLE, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/ev.jsonl', 'format' = 'json');
CREATE TABLE out_rows (k STRING, window_start TIMESTAMP(3), window_end TIMESTAMP(3), n BIGINT, dn BIGINT, sp DOUBLE, vs DOUBLE, vp INT, ss INT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT k, window_start, window_end, COUNT(*), COUNT(DISTINCT v), STDDEV_POP(DISTINCT d), VAR_SAMP(DISTINCT d), VAR_POP(DISTINCT v), STDDEV_SAMP(DISTINCT v) FROM TABLE(TUMBLE(TABLE ev, DESCRIPTOR(ts), INTERVAL '10' SECOND))
WHERE window_end <> TIMESTAMP '2024-01-01 00:00:40' GROUP BY k, window_start, window_end;
