CREATE TABLE o (id INT, k INT, v INT) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/o.jsonl', 'format' = 'json');
CREATE TABLE rc (id INT, k INT, v INT, PRIMARY KEY (id) NOT ENFORCED) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/rc.jsonl', 'format' = 'debezium-json');
CREATE TABLE out_rows (branch STRING, id INT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT 'not exists', id FROM o WHERE NOT EXISTS (SELECT * FROM rc WHERE rc.k = o.k)
UNION ALL SELECT 'not in', id FROM o WHERE k NOT IN (SELECT k FROM rc)
UNION ALL SELECT 'in', id FROM o WHERE k IN (SELECT k FROM rc);
