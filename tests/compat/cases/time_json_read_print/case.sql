CREATE TABLE t (id INT, a TIME, b TIME(3), c TIME(6)) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/in.jsonl', 'format' = 'json');
CREATE TABLE out_rows (id INT, a TIME, b TIME(3), c TIME(6), sa STRING, sb STRING, sc STRING, h BIGINT,
  m BIGINT, s BIGINT, pl TIME(3), mn TIME, lt BOOLEAN, eq BOOLEAN) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT id, a, b, c, CAST(a AS STRING), CAST(b AS STRING), CAST(c AS STRING), HOUR(b),
  MINUTE(b), SECOND(b), b + INTERVAL '1' HOUR, a - INTERVAL '13' HOUR, a < b, CAST(a AS TIME(3)) = b FROM t;
