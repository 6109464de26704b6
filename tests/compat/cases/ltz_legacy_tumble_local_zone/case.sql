SET 'table.local-time-zone' = 'America/New_York';
CREATE TABLE t (id INT, ms BIGINT, v INT, ltz AS TO_TIMESTAMP_LTZ(ms, 3),
  WATERMARK FOR ltz AS ltz - INTERVAL '1' SECOND) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/t.jsonl', 'format' = 'json');
CREATE TABLE out_rows (ws STRING, we STRING, s INT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT CAST(TUMBLE_START(ltz, INTERVAL '1' DAY) AS STRING), CAST(TUMBLE_END(ltz, INTERVAL '1' DAY) AS STRING), SUM(v)
FROM t GROUP BY TUMBLE(ltz, INTERVAL '1' DAY);
