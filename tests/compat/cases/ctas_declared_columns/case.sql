CREATE TABLE t (k STRING, v INT, ts TIMESTAMP(3)) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/t.jsonl', 'format' = 'json');
CREATE TABLE out_rows (
  note STRING,
  v DECIMAL(10, 2) COMMENT 'redeclared',
  twice AS v * 2,
  k VARCHAR(2),
  d DATE
) WITH ('connector' = 'print') AS SELECT k, v, ts AS d, v AS w FROM t;
