CREATE TABLE ev (k STRING, s STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/ev.jsonl', 'format' = 'json');
CREATE TABLE out_rows (k STRING, window_start TIMESTAMP(3), a ARRAY<STRING>, l STRING) WITH ('connector' = 'print');
INSERT INTO out_rows
SELECT k, window_start, ARRAY_AGG(DISTINCT s), LISTAGG(DISTINCT s)
FROM TABLE(TUMBLE(TABLE ev, DESCRIPTOR(ts), INTERVAL '10' SECOND))
GROUP BY k, window_start, window_end;
