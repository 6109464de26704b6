CREATE TABLE ev (id INT, k STRING, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/ev.jsonl', 'format' = 'json');
CREATE TABLE out_rows (k STRING, window_start TIMESTAMP(3), window_end TIMESTAMP(3), s INT, rn BIGINT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT k, window_start, window_end, s, rn FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY s DESC) AS rn FROM (
    SELECT k, window_start, window_end, SUM(v) AS s FROM TABLE(HOP(TABLE ev, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '10' SECOND))
    WHERE window_end > ts + INTERVAL '2' SECOND GROUP BY k, window_start, window_end))
WHERE rn <= 1;
