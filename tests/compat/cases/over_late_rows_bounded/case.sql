CREATE TABLE ev (id INT, k STRING, v BIGINT, d DOUBLE, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '2' SECOND) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/ev.jsonl', 'format' = 'json');
CREATE TABLE out_rows (id INT, s BIGINT) WITH ('connector' = 'print');
INSERT INTO out_rows
SELECT id, SUM(v) OVER (PARTITION BY k ORDER BY ts ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM ev;
