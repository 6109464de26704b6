CREATE TABLE t (id INT, r ROW<x STRING, n INT>) WITH ('connector' = 'filesystem', 'path' = '${CASE_DIR}/t.csv', 'format' = 'csv', 'csv.null-literal' = 'N');
CREATE TABLE out_rows (id INT, r ROW<x STRING, n INT>) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT * FROM t;
