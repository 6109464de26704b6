CREATE TABLE ev (k STRING, s STRING, i INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/ev.jsonl', 'format' = 'json');
CREATE TABLE out_rows (k STRING, p1 DOUBLE, p2 ARRAY<DOUBLE>, p3 DOUBLE, p4 DOUBLE, p5 DOUBLE, p6 DOUBLE) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT k, PERCENTILE(i, 0.25), PERCENTILE(i, ARRAY[0.25, 0.75, 1, 0]), PERCENTILE(i, 0.5, 2),
  PERCENTILE(CAST(i AS DOUBLE) / 3, 0.3), PERCENTILE(i, 0.9, i), PERCENTILE(CAST(i AS DECIMAL(5, 2)) * 1.5, 0.6) FROM ev GROUP BY k;
