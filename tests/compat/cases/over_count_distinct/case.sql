CREATE TABLE ev (id INT, k STRING, v BIGINT, d DOUBLE, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '5' SECOND) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/ev.jsonl', 'format' = 'json');
CREATE TABLE out_rows (id INT, nd BIGINT) WITH ('connector' = 'print');
INSERT INTO out_rows
SELECT id, COUNT(DISTINCT v) OVER (PARTITION BY k ORDER BY ts RANGE BETWEEN INTERVAL '10' SECOND PRECEDING AND CURRENT ROW) FROM ev;
