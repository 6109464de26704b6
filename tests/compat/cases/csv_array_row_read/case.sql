CREATE TABLE t (id INT, a ARRAY<INT>, s ARRAY<STRING>, r ROW<x STRING, n INT>, d ARRAY<DECIMAL(5, 2)>, ts ARRAY<TIMESTAMP(3)>, b ARRAY<BOOLEAN>, y ARRAY<BYTES>) WITH ('connector' = 'filesystem', 'path' = '${CASE_DIR}/t.csv', 'format' = 'csv');
CREATE TABLE out_rows (id INT, a ARRAY<INT>, s ARRAY<STRING>, r ROW<x STRING, n INT>, d ARRAY<DECIMAL(5, 2)>, ts ARRAY<TIMESTAMP(3)>, b ARRAY<BOOLEAN>, y ARRAY<BYTES>) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT * FROM t;
