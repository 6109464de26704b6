CREATE TABLE ev (id INT, k STRING, v BIGINT, d DOUBLE, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '5' SECOND) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/ev.jsonl', 'format' = 'json');
CREATE TABLE out_rows (id INT, k STRING, s10 BIGINT, av DOUBLE, spread BIGINT) WITH ('connector' = 'print');
INSERT INTO out_rows
SELECT id, k, SUM(v) OVER w * 10, AVG(d) OVER w, MAX(v) OVER w - MIN(v) OVER w FROM ev WHERE v IS NOT NULL AND id <> 4 WINDOW w AS (PARTITION BY k ORDER BY ts ROWS BETWEEN 1 PRECEDING AND CURRENT ROW);
