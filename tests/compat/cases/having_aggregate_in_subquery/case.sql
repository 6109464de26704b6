CREATE TABLE o (id INT, k INT, v INT) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/o.jsonl', 'format' = 'json');
CREATE TABLE r (id INT, k INT, v INT, PRIMARY KEY (id) NOT ENFORCED) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/r.jsonl', 'format' = 'debezium-json');
CREATE TABLE out_rows (k INT, s INT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT k, SUM(v) FROM o GROUP BY k HAVING NOT EXISTS (SELECT 1 FROM r WHERE r.v = SUM(o.v));
