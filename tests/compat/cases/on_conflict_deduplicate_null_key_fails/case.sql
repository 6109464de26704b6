SET 'execution.batch-size' = '1';
CREATE TABLE src (id INT, a INT, b INT, v INT, PRIMARY KEY (id) NOT ENFORCED) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/src.jsonl', 'format' = 'debezium-json');
CREATE TABLE snk (a INT, b INT, s INT, PRIMARY KEY (b) NOT ENFORCED) WITH ('connector' = 'print');
INSERT INTO snk SELECT a, b, SUM(v) FROM src GROUP BY a, b ON CONFLICT DO DEDUPLICATE;
