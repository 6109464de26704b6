CREATE TABLE ev (k STRING, v INT, proc AS PROCTIME()) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/events.jsonl', 'format' = 'json');
CREATE TABLE out_rows (k STRING, ws TIMESTAMP(3), n BIGINT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT k, SESSION_START(proc, INTERVAL '1' HOUR), COUNT(*)
FROM ev GROUP BY k, SESSION(proc, INTERVAL '1' HOUR);
