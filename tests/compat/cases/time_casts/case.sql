CREATE TABLE t (id INT, ts TIMESTAMP(3), s STRING) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/in.jsonl', 'format' = 'json');
CREATE TABLE out_rows (id INT, a TIME, b TIME(3), c TIME(3), d TIME, e TIME(1), f BIGINT, g TIME, h TIME,
  l TIME(3), ls STRING) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT id, CAST(ts AS TIME), CAST(ts AS TIME(3)), CAST(s AS TIME(3)), CAST(s AS TIME),
  CAST(CAST(ts AS TIME(3)) AS TIME(1)), EXTRACT(MINUTE FROM CAST(ts AS TIME(3))),
  FLOOR(CAST(ts AS TIME(3)) TO MINUTE), CEIL(CAST(ts AS TIME(3)) TO HOUR), TIME '12:34:56.789',
  CAST(TIME '01:02:03' AS STRING) FROM t;
