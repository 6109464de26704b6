CREATE TABLE t (id INT, k INT, v INT, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/t.jsonl', 'format' = 'json');
CREATE TABLE out_rows (window_start TIMESTAMP(3), n BIGINT, s INT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT window_start, COUNT(*) AS n, SUM(v) AS s
FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '5' SECOND))
GROUP BY window_start, window_end LIMIT 2;
