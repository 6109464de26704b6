CREATE TABLE cn (id INT, g STRING, k INT, v INT, PRIMARY KEY (id) NOT ENFORCED) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/cn.jsonl', 'format' = 'debezium-json');
CREATE TABLE out_rows (g STRING, k INT, c BIGINT, dv BIGINT, sf INT, gid BIGINT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT g, k, COUNT(*) AS c, COUNT(DISTINCT v) AS dv, SUM(v) FILTER (WHERE v > 5) AS sf, GROUPING_ID(g, k) AS gid FROM cn GROUP BY ROLLUP (g, k);
