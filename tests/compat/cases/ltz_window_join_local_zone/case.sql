SET 'table.local-time-zone' = 'America/New_York';
CREATE TABLE t (id INT, ms BIGINT, v INT, ltz AS TO_TIMESTAMP_LTZ(ms, 3),
  WATERMARK FOR ltz AS ltz - INTERVAL '1' SECOND) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/t.jsonl', 'format' = 'json');
CREATE TABLE u (id INT, ms BIGINT, w INT, ltz AS TO_TIMESTAMP_LTZ(ms, 3),
  WATERMARK FOR ltz AS ltz - INTERVAL '1' SECOND) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/u.jsonl', 'format' = 'json');
CREATE TABLE out_rows (a INT, b INT, ws STRING, w INT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT l.id, r.id, CAST(l.window_start AS STRING), r.w FROM
  (SELECT * FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ltz), INTERVAL '1' DAY))) l JOIN
  (SELECT * FROM TABLE(TUMBLE(TABLE u, DESCRIPTOR(ltz), INTERVAL '1' DAY))) r
  ON l.window_start = r.window_start AND l.window_end = r.window_end AND l.id = r.id + 1;
