CREATE TABLE w (k INT, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/w.jsonl', 'format' = 'json');
CREATE TABLE out_rows (ws TIMESTAMP(3), s INT, a INT, c BIGINT) WITH ('connector' = 'print');
INSERT INTO out_rows
SELECT HOP_START(ts, INTERVAL '5' SECOND, INTERVAL '10' SECOND), SUM(DISTINCT v), AVG(DISTINCT v), COUNT(DISTINCT v)
FROM w GROUP BY HOP(ts, INTERVAL '5' SECOND, INTERVAL '10' SECOND);
