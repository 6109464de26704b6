CREATE TABLE ev (k STRING, s STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/ev.jsonl', 'format' = 'json');
CREATE TABLE out_rows (k STRING, window_end TIMESTAMP(3), d STRING) WITH ('connector' = 'print');
INSERT INTO out_rows
SELECT k, window_end, LISTAGG(DISTINCT s)
FROM TABLE(CUMULATE(TABLE ev, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '10' SECOND))
GROUP BY k, window_start, window_end;
