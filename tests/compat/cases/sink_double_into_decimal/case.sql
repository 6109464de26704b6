CREATE TABLE t (id INT, x DOUBLE, f FLOAT) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/t.jsonl', 'format' = 'json');
CREATE TABLE out_rows (id INT, d DECIMAL(5, 2), e DECIMAL(5, 2), q DECIMAL(12, 0)) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT id, x, f, x / 3 FROM t;
