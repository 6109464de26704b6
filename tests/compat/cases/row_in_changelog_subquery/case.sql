CREATE TABLE o (id INT, a INT, b STRING) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/o.jsonl', 'format' = 'json');
CREATE TABLE rc (id INT, x INT, y STRING, PRIMARY KEY (id) NOT ENFORCED) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/rc.jsonl', 'format' = 'debezium-json');
CREATE TABLE out_rows (branch STRING, id INT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT 'in', id FROM o WHERE (a, b) IN (SELECT x, y FROM rc)
UNION ALL SELECT 'not in', id FROM o WHERE (a, b) NOT IN (SELECT x, y FROM rc)
UNION ALL SELECT 'not exists', id FROM o WHERE NOT EXISTS (SELECT * FROM rc WHERE rc.x = o.a AND rc.y = o.b);
