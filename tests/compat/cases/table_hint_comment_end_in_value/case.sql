CREATE TABLE t (id INT, v STRING) WITH ('connector' = 'filesystem', 'path' = '${CASE_DIR}/t.csv', 'format' = 'csv');
CREATE TABLE out_rows (id INT, v STRING) WITH ('connector' = 'print');
INSERT INTO out_rows /*+ LOOKUP('table' = 'it''s */ ok') */ SELECT id, v FROM t /*+ OPTIONS('csv.null-literal' = '*/') */ WHERE v IS NULL OR v <> '*/ x';
