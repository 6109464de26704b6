CREATE TABLE o (id INT, g INT, a INT, b STRING) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/o.jsonl', 'format' = 'json');
CREATE TABLE r (id INT, g INT, x INT, y STRING, w INT) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/r.jsonl', 'format' = 'json');
CREATE TABLE out_rows (branch STRING, id INT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT 'in', id FROM o WHERE (a, b) IN (SELECT x, y FROM r WHERE r.g = o.g)
UNION ALL SELECT 'not in', id FROM o WHERE (a, b) NOT IN (SELECT x, y FROM r WHERE r.g = o.g)
UNION ALL SELECT 'not in, non-equi', id FROM o WHERE (a, b) NOT IN (SELECT x, y FROM r WHERE r.w > o.id)
UNION ALL SELECT 'exists', id FROM o WHERE EXISTS (SELECT 1 FROM r WHERE r.g = o.g AND r.x = o.a AND r.y = o.b)
UNION ALL SELECT 'not exists', id FROM o WHERE NOT EXISTS (SELECT 1 FROM r WHERE r.x = o.a AND r.y = o.b AND r.w > o.id);
