SET 'table.local-time-zone' = 'America/New_York';
CREATE TABLE t (id INT, ts TIMESTAMP(3), s STRING) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/t.jsonl', 'format' = 'json');
CREATE TABLE out_rows (id INT, ltz STRING, secs BIGINT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT id, CAST(CAST(ts AS TIMESTAMP_LTZ(3)) AS STRING), TIMESTAMPDIFF(SECOND, TO_TIMESTAMP_LTZ(0, 3), CAST(ts AS TIMESTAMP_LTZ(3)))
FROM t;
