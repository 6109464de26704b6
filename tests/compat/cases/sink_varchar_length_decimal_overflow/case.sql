CREATE TABLE t (id INT, s STRING, n INT, x DOUBLE) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/t.jsonl', 'format' = 'json');
CREATE TABLE out_rows (id INT, v VARCHAR(3), d DECIMAL(3, 1), e DECIMAL(3, 1)) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT id, s, n, CAST(x AS DECIMAL(3, 1)) FROM t;
