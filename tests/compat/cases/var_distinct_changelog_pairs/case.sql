CREATE TABLE cn (id INT, g STRING, x INT, d DOUBLE, PRIMARY KEY (id) NOT ENFORCED) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/cn.jsonl', 'format' = 'debezium-json');
CREATE TABLE out_rows (g STRING, a INT, b INT, c INT, e INT, f DOUBLE, h DOUBLE, i DOUBLE, j DOUBLE) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT g, VAR_POP(DISTINCT x), VAR_SAMP(DISTINCT x), STDDEV_POP(DISTINCT x), STDDEV_SAMP(DISTINCT x), VAR_POP(DISTINCT d), VAR_SAMP(DISTINCT d), STDDEV_POP(DISTINCT d), STDDEV_SAMP(DISTINCT d) FROM cn GROUP BY g;
