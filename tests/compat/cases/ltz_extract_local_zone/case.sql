SET 'table.local-time-zone' = 'America/New_York';
CREATE TABLE t (id INT, ms BIGINT, v INT, ltz AS TO_TIMESTAMP_LTZ(ms, 3),
  WATERMARK FOR ltz AS ltz - INTERVAL '1' SECOND) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/t.jsonl', 'format' = 'json');
CREATE TABLE out_rows (id INT, h BIGINT, eh BIGINT, dm BIGINT, dw BIGINT, mi BIGINT, mo BIGINT, d STRING, f STRING) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT id, HOUR(ltz), EXTRACT(HOUR FROM ltz), DAYOFMONTH(ltz), DAYOFWEEK(ltz), MINUTE(ltz), MONTH(ltz), CAST(CAST(ltz AS DATE) AS STRING), DATE_FORMAT(ltz, 'yyyy-MM-dd HH:mm')
FROM t;
