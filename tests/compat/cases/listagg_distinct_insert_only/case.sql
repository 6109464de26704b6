CREATE TABLE ev (k STRING, s STRING, ts TIMESTAMP(3)) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/ev.jsonl', 'format' = 'json');
CREATE TABLE out_rows (k STRING, d STRING, dp STRING, l STRING, n BIGINT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT k, LISTAGG(DISTINCT s), LISTAGG(DISTINCT s, '|'), LISTAGG(s), COUNT(DISTINCT s) FROM ev GROUP BY k;
