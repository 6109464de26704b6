CREATE TABLE ev (g STRING, k INT, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/ev.jsonl', 'format' = 'json');
CREATE TABLE out_rows (window_start TIMESTAMP(3), window_end TIMESTAMP(3), g STRING, k INT, c BIGINT, s INT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT window_start, window_end, g, k, COUNT(*) AS c, SUM(v) AS s FROM TABLE(SESSION(TABLE ev, DESCRIPTOR(ts), INTERVAL '3' SECOND)) GROUP BY window_start, window_end, ROLLUP (g, k);
