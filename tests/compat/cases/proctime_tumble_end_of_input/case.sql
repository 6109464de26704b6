CREATE TABLE ev (k STRING, v INT, proc AS PROCTIME()) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/events.jsonl', 'format' = 'json');
CREATE TABLE out_rows (k STRING, ws TIMESTAMP(3), we TIMESTAMP(3), n BIGINT, s INT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT k, window_start, window_end, COUNT(*), SUM(v)
FROM TABLE(TUMBLE(TABLE ev, DESCRIPTOR(proc), INTERVAL '1' HOUR)) GROUP BY k, window_start, window_end;
