SET 'table.local-time-zone' = 'America/New_York';
CREATE TABLE t (id INT, ms BIGINT, v INT, ltz AS TO_TIMESTAMP_LTZ(ms, 3),
  WATERMARK FOR ltz AS ltz - INTERVAL '1' SECOND) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/t.jsonl', 'format' = 'json');
CREATE TABLE out_rows (ws STRING, id INT, v INT, rn BIGINT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT CAST(window_start AS STRING), id, v, rn FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY v DESC) AS rn
  FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ltz), INTERVAL '1' DAY)))
WHERE rn <= 1;
