CREATE TABLE cn (id INT, k STRING, i INT, b BIGINT, d DOUBLE, PRIMARY KEY (id) NOT ENFORCED) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/cn.jsonl', 'format' = 'debezium-json');
CREATE TABLE out_rows (k STRING, vp INT, vs INT, sp BIGINT, ss BIGINT, dvp DOUBLE, dvs DOUBLE, dsp DOUBLE,
  dss DOUBLE) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT k, VAR_POP(i), VAR_SAMP(i), STDDEV_POP(b), STDDEV_SAMP(b), VAR_POP(d), VARIANCE(d),
  STDDEV_POP(d), STDDEV(d) FROM cn GROUP BY k;
