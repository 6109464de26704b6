CREATE TABLE src (id INT, a INT, b INT, v INT, PRIMARY KEY (id) NOT ENFORCED) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/src.jsonl', 'format' = 'debezium-json');
CREATE TABLE snk (a INT, b INT, s INT, PRIMARY KEY (a) NOT ENFORCED) WITH ('connector' = 'print');
CREATE TABLE app (a INT, b INT, v INT) WITH ('connector' = 'filesystem', 'path' = '${CASE_DIR}/app.jsonl', 'format' = 'json');
INSERT INTO snk SELECT a, b, v FROM app ON CONFLICT DO DEDUPLICATE;
