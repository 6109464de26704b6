CREATE TABLE t (id INT, a TIME, b TIME(3)) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/in.csv', 'format' = 'csv');
CREATE TABLE out_rows (id INT, a TIME, b TIME(3)) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT id, a, b FROM t;
