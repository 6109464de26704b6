CREATE TABLE s (id INT, k STRING, v INT) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/s.jsonl', 'format' = 'json');
CREATE TABLE out_rows (k STRING, n BIGINT, big BIGINT, nv BIGINT, s1 INT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT k, COUNT(*), COUNT(*) FILTER (WHERE v > 1), COUNT(v) FILTER (WHERE id > 2), SUM(v) FILTER (WHERE id <> 2) FROM s GROUP BY k;
