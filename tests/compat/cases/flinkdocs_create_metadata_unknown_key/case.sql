CREATE TABLE MyTable (
  `user_id` BIGINT,
  `ts` TIMESTAMP_LTZ(3) METADATA FROM 'timestamp'
) WITH ('connector' = 'filesystem', 'path' = '${CASE_DIR}/t.jsonl', 'format' = 'json');
CREATE TABLE out_rows (user_id BIGINT, ts TIMESTAMP_LTZ(3)) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT user_id, ts FROM MyTable;
