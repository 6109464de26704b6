CREATE TABLE cn (id INT, k STRING, i INT, si SMALLINT, m DECIMAL(5, 2), PRIMARY KEY (id) NOT ENFORCED) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/cn.jsonl', 'format' = 'debezium-json');
CREATE TABLE out_rows (k STRING, s DECIMAL(38, 2), a DECIMAL(38, 6)) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT k, SUM(m), AVG(m) FROM cn GROUP BY k;
