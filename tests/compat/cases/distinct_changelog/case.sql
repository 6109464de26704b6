CREATE TABLE c (id INT, k STRING, v INT, PRIMARY KEY (id) NOT ENFORCED) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/c.jsonl', 'format' = 'debezium-json');
CREATE TABLE out_rows (k STRING) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT DISTINCT k FROM c;
