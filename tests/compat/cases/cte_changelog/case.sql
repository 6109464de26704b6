CREATE TABLE c (id INT, k STRING, v INT, PRIMARY KEY (id) NOT ENFORCED) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/c.jsonl', 'format' = 'debezium-json');
CREATE TABLE out_rows (k STRING, n BIGINT) WITH ('connector' = 'print');
INSERT INTO out_rows WITH live AS (SELECT k, v FROM c WHERE v > 1) SELECT k, COUNT(*) FROM live GROUP BY k;
