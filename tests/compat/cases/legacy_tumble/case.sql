CREATE TABLE ev (id INT, k STRING, v BIGINT, d DOUBLE, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '5' SECOND) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/ev.jsonl', 'format' = 'json');
CREATE TABLE out_rows (k STRING, ws TIMESTAMP(3), we TIMESTAMP(3), n BIGINT, nv BIGINT, s BIGINT, hi BIGINT) WITH ('connector' = 'print');
INSERT INTO out_rows
SELECT k, TUMBLE_START(ts, INTERVAL '10' SECOND), TUMBLE_END(ts, INTERVAL '10' SECOND), COUNT(*), COUNT(v), SUM(v), MAX(v) FROM ev GROUP BY k, TUMBLE(ts, INTERVAL '10' SECOND);
