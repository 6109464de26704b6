CREATE TABLE src (id INT, a INT, b INT, v INT, PRIMARY KEY (id) NOT ENFORCED) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/src.jsonl', 'format' = 'debezium-json');
CREATE TABLE snk (id INT, v INT, PRIMARY KEY (id) NOT ENFORCED) WITH ('connector' = 'print');
INSERT INTO snk SELECT id, v FROM src WHERE v > 6;
