CREATE TABLE o (id INT, a INT, b STRING) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/o.jsonl', 'format' = 'json');
CREATE TABLE out_rows (branch STRING, id INT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT 'eq', id FROM o WHERE (a, b) = (1, 'x')
UNION ALL SELECT 'ne', id FROM o WHERE (a, b) <> (1, 'x');
