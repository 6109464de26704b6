CREATE TABLE t (id INT, s STRING) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/t.jsonl', 'format' = 'json');
CREATE TABLE out_rows (id INT, i STRING, u STRING, l STRING) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT id, INITCAP(s), UPPER(s), LOWER(s) FROM t;
