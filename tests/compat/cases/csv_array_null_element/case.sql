CREATE TABLE t (id INT, a ARRAY<INT>, s ARRAY<STRING>) WITH ('connector' = 'filesystem', 'path' = '${CASE_DIR}/t.csv', 'format' = 'csv', 'csv.null-literal' = 'N');
CREATE TABLE out_rows (id INT, a ARRAY<INT>, s ARRAY<STRING>) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT * FROM t;
