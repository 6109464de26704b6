CREATE TABLE cn (id INT, k STRING, s STRING, i INT, PRIMARY KEY (id) NOT ENFORCED) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/cn.jsonl', 'format' = 'debezium-json');
CREATE TABLE out_rows (k STRING, p DOUBLE, q ARRAY<DOUBLE>) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT k, PERCENTILE(i, 0.5), PERCENTILE(i, ARRAY[0.1, 0.9]) FROM cn GROUP BY k;
