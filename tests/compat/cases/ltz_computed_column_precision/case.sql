CREATE TABLE t (id INT, ms BIGINT, ltz AS TO_TIMESTAMP_LTZ(ms, 3), lag_ltz AS TO_TIMESTAMP_LTZ(ms + 1, 3),
  WATERMARK FOR ltz AS ltz - INTERVAL '1' SECOND) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/t.jsonl', 'format' = 'json');
CREATE TABLE out_rows (id INT, ltz_text STRING, lag_text STRING, filtered STRING) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT id, CAST(ltz AS STRING), CAST(lag_ltz AS STRING), CAST(f AS STRING)
FROM (SELECT id, ltz, lag_ltz, ltz AS f FROM t WHERE id > 0);
