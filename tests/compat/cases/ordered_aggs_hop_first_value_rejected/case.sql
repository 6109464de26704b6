CREATE TABLE ev (k STRING, `dec` DECIMAL(10, 2), d DOUBLE, b BOOLEAN, t TIMESTAMP(3), ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/ev.jsonl', 'format' = 'json');
CREATE TABLE out_rows (k STRING, window_start TIMESTAMP(3), fdec DECIMAL(10, 2), ldec DECIMAL(10, 2), fd DOUBLE,
  ld DOUBLE, fb BOOLEAN, lb BOOLEAN, ft TIMESTAMP(3), lt TIMESTAMP(3)) WITH ('connector' = 'print');
INSERT INTO out_rows
SELECT k, window_start, FIRST_VALUE(`dec`), LAST_VALUE(`dec`), FIRST_VALUE(d), LAST_VALUE(d), FIRST_VALUE(b),
  LAST_VALUE(b), FIRST_VALUE(t), LAST_VALUE(t)
FROM TABLE(HOP(TABLE ev, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '10' SECOND))
GROUP BY k, window_start, window_end;
