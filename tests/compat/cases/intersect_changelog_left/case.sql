CREATE TABLE c (id INT, k STRING, v INT, PRIMARY KEY (id) NOT ENFORCED) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/c.jsonl', 'format' = 'debezium-json');
CREATE TABLE t (id INT, k STRING, v INT) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/t.jsonl', 'format' = 'json');
CREATE TABLE out_rows (k STRING, v INT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT k, v FROM c INTERSECT SELECT k, v FROM t;
