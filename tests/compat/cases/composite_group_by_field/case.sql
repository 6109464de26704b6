CREATE TABLE c (id INT, p ROW<city STRING, v INT>, PRIMARY KEY (id) NOT ENFORCED) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/c.jsonl', 'format' = 'debezium-json');
CREATE TABLE out_rows (city STRING, n BIGINT, total INT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT p.city, COUNT(*), SUM(p.v) FROM c GROUP BY p.city;
