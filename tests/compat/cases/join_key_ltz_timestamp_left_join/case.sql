SET 'table.local-time-zone' = 'America/New_York';
CREATE TABLE t (id INT, ts TIMESTAMP(6)) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/t.jsonl', 'format' = 'json');
CREATE TABLE u (id INT, ms BIGINT, ltz AS TO_TIMESTAMP_LTZ(ms, 3)) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/u.jsonl', 'format' = 'json');
CREATE TABLE out_rows (b INT, a INT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT u.id, t.id FROM u LEFT JOIN t ON u.ltz = t.ts;
