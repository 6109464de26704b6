CREATE TABLE ev (k STRING, v INT, proc AS PROCTIME()) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/events.jsonl', 'format' = 'json');
CREATE TABLE out_rows (k STRING, n BIGINT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT k, COUNT(*)
FROM TABLE(HOP(TABLE ev, DESCRIPTOR(proc), INTERVAL '1' MINUTE, INTERVAL '1' HOUR)) GROUP BY k, window_start, window_end;
