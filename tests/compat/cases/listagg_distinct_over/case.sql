CREATE TABLE ev (k STRING, s STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/ev.jsonl', 'format' = 'json');
CREATE TABLE out_rows (k STRING, ts TIMESTAMP(3), d2 STRING, dp STRING) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT k, ts, LISTAGG(DISTINCT s) OVER w, LISTAGG(DISTINCT s, '|') OVER w
FROM ev WINDOW w AS (PARTITION BY k ORDER BY ts ROWS BETWEEN 2 PRECEDING AND CURRENT ROW);
