CREATE TABLE ev (g STRING, k INT, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/ev.jsonl', 'format' = 'json');
CREATE TABLE out_rows (window_end TIMESTAMP(3), g STRING, k INT, c BIGINT, gid BIGINT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT window_end, g, k, COUNT(*) AS c, GROUPING_ID(g, k) AS gid FROM TABLE(CUMULATE(TABLE ev, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '10' SECOND)) GROUP BY window_start, window_end, CUBE (g, k) HAVING COUNT(*) >= 1;
