CREATE TABLE t (id INT, s STRING) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/t.jsonl', 'format' = 'json');
CREATE TABLE out_rows (id INT, a STRING, b STRING) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT id, CONVERT_TZ(s, 'America/New_York', 'UTC'), CONVERT_TZ(s, 'UTC', 'Asia/Kolkata') FROM t;
