CREATE TABLE cn (id INT, k STRING, s STRING, i INT, PRIMARY KEY (id) NOT ENFORCED) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/cn.jsonl', 'format' = 'debezium-json');
CREATE TABLE out_rows (k STRING, a ARRAY<STRING>, ad ARRAY<STRING>, ai ARRAY<INT>, an ARRAY<INT>, ja STRING, jn STRING)
  WITH ('connector' = 'print');
INSERT INTO out_rows SELECT k, ARRAY_AGG(s), ARRAY_AGG(DISTINCT s), ARRAY_AGG(i), ARRAY_AGG(i IGNORE NULLS), JSON_ARRAYAGG(s),
  JSON_ARRAYAGG(i NULL ON NULL) FROM cn GROUP BY k;
