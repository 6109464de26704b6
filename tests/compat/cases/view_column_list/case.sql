CREATE TABLE out_rows (k STRING, n BIGINT, total INT, PRIMARY KEY (k) NOT ENFORCED) WITH ('connector' = 'print');
CREATE VIEW named (k, v) AS SELECT * FROM (VALUES ('a', 1), ('b', 2), ('a', 3)) AS t(p, q);
CREATE VIEW totals (key_name, cnt, total) AS SELECT k, COUNT(*), SUM(v) FROM named WHERE v > 0 GROUP BY k;
INSERT INTO out_rows SELECT key_name, cnt, total FROM totals;
