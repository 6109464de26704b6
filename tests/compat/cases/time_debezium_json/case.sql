CREATE TABLE t (id INT, t TIME) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/in.jsonl', 'format' = 'debezium-json');
CREATE TABLE out_rows (t TIME, n BIGINT, PRIMARY KEY (t) NOT ENFORCED) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT t, COUNT(*) FROM t GROUP BY t;
