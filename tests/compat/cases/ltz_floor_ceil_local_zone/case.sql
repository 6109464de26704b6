SET 'table.local-time-zone' = 'America/New_York';
CREATE TABLE t (id INT, ms BIGINT, v INT, ltz AS TO_TIMESTAMP_LTZ(ms, 3),
  WATERMARK FOR ltz AS ltz - INTERVAL '1' SECOND) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/t.jsonl', 'format' = 'json');
CREATE TABLE out_rows (id INT, fd STRING, ch STRING) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT id, CAST(FLOOR(ltz TO DAY) AS STRING), CAST(CEIL(ltz TO HOUR) AS STRING)
FROM t;
