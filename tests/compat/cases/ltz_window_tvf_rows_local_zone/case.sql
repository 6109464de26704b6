SET 'table.local-time-zone' = 'America/New_York';
CREATE TABLE t (id INT, ms BIGINT, v INT, ltz AS TO_TIMESTAMP_LTZ(ms, 3),
  WATERMARK FOR ltz AS ltz - INTERVAL '1' SECOND) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/t.jsonl', 'format' = 'json');
CREATE TABLE out_rows (id INT, ws STRING, we STRING, wt STRING) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT id, CAST(window_start AS STRING), CAST(window_end AS STRING), CAST(window_time AS STRING)
FROM TABLE(HOP(TABLE t, DESCRIPTOR(ltz), INTERVAL '12' HOUR, INTERVAL '1' DAY));
