CREATE TABLE t (id INT, a ARRAY<ARRAY<INT>>) WITH ('connector' = 'filesystem', 'path' = '${CASE_DIR}/t.csv', 'format' = 'csv');
CREATE TABLE out_rows (id INT, a ARRAY<ARRAY<INT>>) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT * FROM t;
