CREATE TABLE ev (id INT, k STRING, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/ev.jsonl', 'format' = 'json');
CREATE TABLE out_rows (k STRING, ws TIMESTAMP(3), we TIMESTAMP(3), n BIGINT, s INT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT k, ws, we, COUNT(*), SUM(w) FROM (
  SELECT k, window_start AS ws, window_end AS we, v * 10 AS w
  FROM TABLE(SESSION(TABLE ev PARTITION BY k, DESCRIPTOR(ts), INTERVAL '5' SECOND)) WHERE v > 0)
GROUP BY k, ws, we;
