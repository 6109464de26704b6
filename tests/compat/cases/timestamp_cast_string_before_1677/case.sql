CREATE TABLE t (id INT, ts TIMESTAMP(3), t6 TIMESTAMP(6)) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/t.jsonl', 'format' = 'json');
CREATE TABLE out_rows (id INT, s STRING, s6 STRING) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT id, CAST(ts AS STRING), CAST(t6 AS STRING) FROM t;
