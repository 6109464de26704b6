CREATE TABLE ev (k STRING, s STRING, i INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/ev.jsonl', 'format' = 'json');
CREATE TABLE out_rows (k STRING, ts TIMESTAMP(3), fs STRING, ls STRING, fi INT, la STRING, a ARRAY<STRING>)
  WITH ('connector' = 'print');
INSERT INTO out_rows SELECT k, ts, FIRST_VALUE(s) OVER w, LAST_VALUE(s) OVER w, FIRST_VALUE(i) OVER w, LISTAGG(s, '|') OVER w,
  ARRAY_AGG(s) OVER w FROM ev WINDOW w AS (PARTITION BY k ORDER BY ts RANGE BETWEEN INTERVAL '5' SECOND PRECEDING AND CURRENT ROW);
