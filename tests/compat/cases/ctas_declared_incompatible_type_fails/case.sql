CREATE TABLE t (k STRING, v INT, ts TIMESTAMP(3)) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/t.jsonl', 'format' = 'json');
CREATE TABLE out_rows (x INT, v SMALLINT) WITH ('connector' = 'print') AS SELECT k, v FROM t;
