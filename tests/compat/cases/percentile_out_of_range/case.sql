CREATE TABLE ev (k STRING, s STRING, i INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/ev.jsonl', 'format' = 'json');
CREATE TABLE out_rows (k STRING, p DOUBLE) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT k, PERCENTILE(i, 1.5) FROM ev GROUP BY k;
