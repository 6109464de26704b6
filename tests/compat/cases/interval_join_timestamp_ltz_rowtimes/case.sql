SET 'table.local-time-zone' = 'America/New_York';
CREATE TABLE t (id INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/t.jsonl', 'format' = 'json');
CREATE TABLE u (id INT, ms BIGINT, ltz AS TO_TIMESTAMP_LTZ(ms, 3), WATERMARK FOR ltz AS ltz) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/u.jsonl', 'format' = 'json');
CREATE TABLE out_rows (a INT, ms BIGINT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT t.id, u.ms FROM t JOIN u
  ON t.id = u.id AND u.ltz BETWEEN t.ts - INTERVAL '10' MINUTE AND t.ts + INTERVAL '10' MINUTE;
