CREATE TABLE t (id INT, m MAP<STRING, INT>) WITH ('connector' = 'filesystem', 'path' = '${CASE_DIR}/t.csv', 'format' = 'csv');
CREATE TABLE out_rows (id INT, m MAP<STRING, INT>) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT * FROM t;
