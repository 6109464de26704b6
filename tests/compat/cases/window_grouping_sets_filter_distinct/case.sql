CREATE TABLE ev (g STRING, k INT, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/ev.jsonl', 'format' = 'json');
CREATE TABLE out_rows (window_start TIMESTAMP(3), ug STRING, dk BIGINT, sf INT, gg BIGINT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT window_start, UPPER(g) AS ug, COUNT(DISTINCT k) AS dk, SUM(v) FILTER (WHERE v > 2) AS sf, GROUPING(UPPER(g)) AS gg FROM TABLE(TUMBLE(TABLE ev, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY window_start, window_end, GROUPING SETS ((UPPER(g)), ()) HAVING GROUPING(UPPER(g)) = 1 OR COUNT(*) > 1;
