CREATE TABLE o (id INT, k INT, v INT) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/o.jsonl', 'format' = 'json');
CREATE TABLE r (id INT, k INT, v INT) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/r.jsonl', 'format' = 'json');
CREATE TABLE out_rows (branch STRING, id INT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT 'exists', id FROM o WHERE EXISTS (SELECT * FROM r WHERE r.k = o.k AND r.v > o.v)
UNION ALL SELECT 'not exists', id FROM o WHERE NOT EXISTS (SELECT 1 FROM r WHERE r.k = o.k AND r.v > o.v);
