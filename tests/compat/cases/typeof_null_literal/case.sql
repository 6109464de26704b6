CREATE TABLE t (id INT NOT NULL, n INT NOT NULL, s STRING, d DECIMAL(5, 2), ts TIMESTAMP(3)) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/t.jsonl', 'format' = 'json');
CREATE TABLE out_rows (id INT, a STRING) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT id, TYPEOF(NULL) FROM t;
