SET 'execution.batch-size' = '1';
SET 'table.exec.sink.require-on-conflict' = 'false';
CREATE TABLE src (id INT, a INT, b INT, v INT, PRIMARY KEY (id) NOT ENFORCED) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/src.jsonl', 'format' = 'debezium-json');
CREATE TABLE snk (b INT, a INT, s INT, PRIMARY KEY (b) NOT ENFORCED) WITH ('connector' = 'print');
INSERT INTO snk SELECT b, a, SUM(v) FROM src GROUP BY a, b;
