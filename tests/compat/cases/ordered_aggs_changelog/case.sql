CREATE TABLE cn (id INT, k STRING, s STRING, i INT, PRIMARY KEY (id) NOT ENFORCED) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/cn.jsonl', 'format' = 'debezium-json');
CREATE TABLE out_rows (k STRING, fs STRING, ls STRING, fi INT, li INT, la STRING, lb STRING) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT k, FIRST_VALUE(s), LAST_VALUE(s), FIRST_VALUE(i), LAST_VALUE(i), LISTAGG(s),
  LISTAGG(s, '|') FROM cn GROUP BY k;
