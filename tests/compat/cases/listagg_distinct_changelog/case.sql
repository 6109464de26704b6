CREATE TABLE cn (id INT, k STRING, s STRING, PRIMARY KEY (id) NOT ENFORCED) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/cn.jsonl', 'format' = 'debezium-json');
CREATE TABLE out_rows (k STRING, d STRING, dp STRING, l STRING) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT k, LISTAGG(DISTINCT s), LISTAGG(DISTINCT s, '|'), LISTAGG(s) FROM cn GROUP BY k;
