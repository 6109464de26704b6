CREATE TABLE ev (id INT, k STRING, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/ev.jsonl', 'format' = 'json');
CREATE TABLE out_rows (window_start TIMESTAMP(3), window_end TIMESTAMP(3), k STRING, pos BOOLEAN, n BIGINT, x BIGINT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT window_start, window_end, k, pos, COUNT(*), SUM(x) FROM (
  SELECT window_start, window_end, k, v > 0 AS pos, CAST(EXTRACT(SECOND FROM window_start) AS BIGINT) AS x
  FROM TABLE(CUMULATE(TABLE ev, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '15' SECOND)))
GROUP BY window_start, window_end, ROLLUP (k, pos);
