SET 'execution.batch-size' = '1';
CREATE TABLE src (id INT, a INT, b INT, v INT, PRIMARY KEY (id) NOT ENFORCED) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/src.jsonl', 'format' = 'debezium-json');
CREATE TABLE snk (a INT, b INT, s INT, c BIGINT, PRIMARY KEY (a) NOT ENFORCED) WITH ('connector' = 'print');
INSERT INTO snk SELECT a, b, SUM(v), COUNT(*) FROM src GROUP BY a, b ON CONFLICT DO DEDUPLICATE;
