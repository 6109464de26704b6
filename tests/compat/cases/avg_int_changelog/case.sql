CREATE TABLE cn (id INT, k STRING, i INT, si SMALLINT, m DECIMAL(5, 2), PRIMARY KEY (id) NOT ENFORCED) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/cn.jsonl', 'format' = 'debezium-json');
CREATE TABLE out_rows (k STRING, s INT, a INT, ss SMALLINT, asi SMALLINT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT k, SUM(i), AVG(i), SUM(si), AVG(si) FROM cn GROUP BY k;
