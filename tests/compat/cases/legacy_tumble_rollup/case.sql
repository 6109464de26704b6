CREATE TABLE ev (g STRING, k INT, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/ev.jsonl', 'format' = 'json');
CREATE TABLE out_rows (ws TIMESTAMP(3), g STRING, c BIGINT, gg BIGINT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT TUMBLE_START(ts, INTERVAL '10' SECOND) AS ws, g, COUNT(*) AS c, GROUPING(g) AS gg FROM ev GROUP BY TUMBLE(ts, INTERVAL '10' SECOND), ROLLUP (g);
