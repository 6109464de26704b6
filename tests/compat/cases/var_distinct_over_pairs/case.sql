CREATE TABLE ev (id INT, k STRING, v INT, d DOUBLE, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/ev.jsonl', 'format' = 'json');
CREATE TABLE out_rows (id INT, a DOUBLE, b INT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT id, STDDEV_POP(DISTINCT d) OVER w, VAR_SAMP(DISTINCT v) OVER w FROM ev
  WINDOW w AS (ORDER BY ts ROWS BETWEEN 3 PRECEDING AND CURRENT ROW);
