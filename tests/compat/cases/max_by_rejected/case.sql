CREATE TABLE ev (k STRING, s STRING, ts TIMESTAMP(3)) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/ev.jsonl', 'format' = 'json');
CREATE TABLE out_rows (k STRING, l STRING) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT k, MAX_BY(s, ts) FROM ev GROUP BY k;
