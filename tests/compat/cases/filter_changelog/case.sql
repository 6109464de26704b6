CREATE TABLE c (id INT, k STRING, v INT, PRIMARY KEY (id) NOT ENFORCED) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/c.jsonl', 'format' = 'debezium-json');
CREATE TABLE out_rows (k STRING, hi INT, lo INT, d BIGINT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT k, MAX(v) FILTER (WHERE id > 1), MIN(v) FILTER (WHERE v < 5), COUNT(DISTINCT v) FILTER (WHERE id <> 4) FROM c GROUP BY k;
