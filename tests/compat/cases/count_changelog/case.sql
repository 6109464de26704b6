CREATE TABLE readings (id BIGINT, k STRING, v INT, PRIMARY KEY (id) NOT ENFORCED) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/readings.jsonl', 'format' = 'debezium-json');
CREATE TABLE out_rows (k STRING, n BIGINT, nv BIGINT, lo INT, hi INT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT k, COUNT(*), COUNT(v), MIN(v), MAX(v) FROM readings GROUP BY k;
