CREATE TABLE ev (id INT, k STRING, v BIGINT, d DOUBLE, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '5' SECOND) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/ev.jsonl', 'format' = 'json');
CREATE TABLE out_rows (id INT, k STRING, s BIGINT, n BIGINT, hi BIGINT) WITH ('connector' = 'print');
INSERT INTO out_rows
SELECT id, k, SUM(v) OVER (PARTITION BY k ORDER BY ts), COUNT(*) OVER (PARTITION BY k ORDER BY ts), MAX(v) OVER (PARTITION BY k ORDER BY ts) FROM ev;
