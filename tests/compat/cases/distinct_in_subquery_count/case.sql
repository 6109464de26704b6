CREATE TABLE c (id INT, k STRING, v INT, PRIMARY KEY (id) NOT ENFORCED) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/c.jsonl', 'format' = 'debezium-json');
CREATE TABLE out_rows (n BIGINT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT COUNT(*) FROM (SELECT DISTINCT k FROM c);
