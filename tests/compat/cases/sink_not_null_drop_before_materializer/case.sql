SET 'execution.batch-size' = '1';
SET 'table.exec.sink.not-null-enforcer' = 'DROP';
CREATE TABLE src (id INT, k INT, v INT, PRIMARY KEY (id) NOT ENFORCED) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/src.jsonl', 'format' = 'debezium-json');
CREATE TABLE snk (k INT, v INT NOT NULL, PRIMARY KEY (k) NOT ENFORCED) WITH ('connector' = 'print');
INSERT INTO snk SELECT k, v FROM src ON CONFLICT DO DEDUPLICATE;
