CREATE TABLE o (id INT, a INT, b STRING) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/o.jsonl', 'format' = 'json');
CREATE TABLE r (id INT, x INT, y STRING, w INT) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/r.jsonl', 'format' = 'json');
CREATE TABLE out_rows (branch STRING, id INT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT 'in', id FROM o WHERE (a, b) IN (SELECT x, y FROM r)
UNION ALL SELECT 'not in, NULLs', id FROM o WHERE (a, b) NOT IN (SELECT x, y FROM r WHERE w < 6)
UNION ALL SELECT 'not in, a row of NULLs', id FROM o WHERE (a, b) NOT IN (SELECT x, y FROM r)
UNION ALL SELECT 'not in, no NULL', id FROM o WHERE (a, b) NOT IN (SELECT x, y FROM r WHERE x IS NOT NULL AND y IS NOT NULL)
UNION ALL SELECT 'not in, empty', id FROM o WHERE (a, b) NOT IN (SELECT x, y FROM r WHERE w > 100)
UNION ALL SELECT 'in, grouped', id FROM o WHERE (b, a) IN (SELECT y, MAX(x) FROM r GROUP BY y)
UNION ALL SELECT 'not in, union', id FROM o WHERE (a, b) NOT IN (SELECT x, y FROM r WHERE w = 1 UNION ALL SELECT x, y FROM r WHERE w = 3);
