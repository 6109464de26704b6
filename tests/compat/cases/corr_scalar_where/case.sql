CREATE TABLE o (id INT, k INT, v INT) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/o.jsonl', 'format' = 'json');
CREATE TABLE r (id INT, k INT, v INT, PRIMARY KEY (id) NOT ENFORCED) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/r.jsonl', 'format' = 'debezium-json');
CREATE TABLE out_rows (id INT, v INT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT id, v FROM o WHERE v > (SELECT AVG(v) FROM r WHERE r.k = o.k AND r.id <> o.id);
