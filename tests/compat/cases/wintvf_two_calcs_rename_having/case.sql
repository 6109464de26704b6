CREATE TABLE ev (id INT, k STRING, v INT, d DOUBLE, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/ev.jsonl', 'format' = 'json');
CREATE TABLE out_rows (ws TIMESTAMP(3), we TIMESTAMP(3), n BIGINT, s INT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT ws, we, COUNT(*), SUM(w) FROM (SELECT window_start AS ws, window_end AS we, v * 2 AS w FROM (
  SELECT * FROM TABLE(TUMBLE(TABLE ev, DESCRIPTOR(ts), INTERVAL '10' SECOND)) WHERE window_start > TIMESTAMP '2024-01-01 00:00:00')) GROUP BY ws, we HAVING COUNT(*) > 1;
