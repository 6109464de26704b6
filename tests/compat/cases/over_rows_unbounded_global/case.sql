CREATE TABLE ev (id INT, k STRING, v BIGINT, d DOUBLE, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '5' SECOND) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/ev.jsonl', 'format' = 'json');
CREATE TABLE out_rows (id INT, n BIGINT, s BIGINT, lo BIGINT) WITH ('connector' = 'print');
INSERT INTO out_rows
SELECT id, COUNT(*) OVER w, SUM(v) OVER w, MIN(v) OVER w FROM ev WINDOW w AS (ORDER BY ts ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW);
