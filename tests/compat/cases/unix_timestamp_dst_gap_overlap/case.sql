SET 'table.local-time-zone' = 'America/New_York';
CREATE TABLE t (id INT, ts TIMESTAMP(3), s STRING) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/t.jsonl', 'format' = 'json');
CREATE TABLE out_rows (id INT, u BIGINT, up BIGINT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT id, UNIX_TIMESTAMP(s), UNIX_TIMESTAMP(s, 'yyyy-MM-dd HH:mm:ss')
FROM t;
