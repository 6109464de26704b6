create view t1(s) as values ('c'), ('a'), ('b'), ('b'), ('c');
create view t2(s) as values ('d'), ('e'), ('a'), ('b'), ('b');
CREATE TABLE out_rows (s STRING) WITH ('connector' = 'print');
INSERT INTO out_rows
(SELECT s FROM t1) EXCEPT (SELECT s FROM t2);
