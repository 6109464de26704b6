CREATE TABLE w (k INT, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/w.jsonl', 'format' = 'json');
CREATE TABLE out_rows (ws TIMESTAMP(3), we TIMESTAMP(3), n BIGINT, s INT) WITH ('connector' = 'print');
INSERT INTO out_rows
SELECT window_start, window_end, COUNT(DISTINCT v), SUM(DISTINCT v)
FROM TABLE(HOP(TABLE w, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '10' SECOND))
GROUP BY window_start, window_end;
