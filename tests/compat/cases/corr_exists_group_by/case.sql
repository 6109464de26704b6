CREATE TABLE o (id INT, k INT, v INT) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/o.jsonl', 'format' = 'json');
CREATE TABLE r (id INT, k INT, v INT, PRIMARY KEY (id) NOT ENFORCED) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/r.jsonl', 'format' = 'debezium-json');
CREATE TABLE out_rows (id INT, e STRING) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT id, 'exists' FROM o WHERE EXISTS (SELECT r.k FROM r WHERE r.k = o.k GROUP BY r.k HAVING COUNT(*) > 1)
UNION ALL SELECT id, 'not exists' FROM o WHERE NOT EXISTS (SELECT r.k FROM r WHERE r.k = o.k GROUP BY r.k HAVING COUNT(*) > 1);
