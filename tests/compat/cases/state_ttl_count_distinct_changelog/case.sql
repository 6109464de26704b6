CREATE TABLE r (id INT, k INT, v INT, PRIMARY KEY (id) NOT ENFORCED) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/r.jsonl', 'format' = 'debezium-json');
SET 'table.exec.state.ttl' = '1 h';
CREATE TABLE out_rows (k INT, f BIGINT, n BIGINT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT k, COUNT(DISTINCT v) FILTER (WHERE v > 3), COUNT(*) FROM r GROUP BY k;
