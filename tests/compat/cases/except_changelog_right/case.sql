CREATE TABLE s (id INT, k STRING, v INT) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/s.jsonl', 'format' = 'json');
CREATE TABLE c (id INT, k STRING, v INT, PRIMARY KEY (id) NOT ENFORCED) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/c.jsonl', 'format' = 'debezium-json');
CREATE TABLE out_rows (k STRING, v INT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT k, v FROM s EXCEPT SELECT k, v FROM c;
