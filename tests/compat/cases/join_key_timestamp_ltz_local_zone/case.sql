SET 'table.local-time-zone' = 'America/New_York';
CREATE TABLE t (id INT, ts TIMESTAMP(3)) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/t.jsonl', 'format' = 'json');
CREATE TABLE u (id INT, ms BIGINT, ltz AS TO_TIMESTAMP_LTZ(ms, 3)) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/u.jsonl', 'format' = 'json');
CREATE TABLE out_rows (a INT, b INT, ts STRING, ltz STRING) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT t.id, u.id, CAST(t.ts AS STRING), CAST(u.ltz AS STRING)
  FROM t JOIN u ON t.ts = u.ltz;
