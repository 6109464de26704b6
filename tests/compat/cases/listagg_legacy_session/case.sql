CREATE TABLE ev (k STRING, s STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '20' SECOND) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/ev.jsonl', 'format' = 'json');
CREATE TABLE out_rows (k STRING, ws TIMESTAMP(3), la STRING) WITH ('connector' = 'print');
INSERT INTO out_rows
SELECT k, SESSION_START(ts, INTERVAL '5' SECOND), LISTAGG(s) FROM ev GROUP BY k, SESSION(ts, INTERVAL '5' SECOND);
