CREATE TABLE s (id INT, k STRING, v INT) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/s.jsonl', 'format' = 'json');
CREATE TABLE out_rows (k STRING, d BIGINT, df BIGINT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT k, COUNT(DISTINCT v), COUNT(DISTINCT v) FILTER (WHERE id > 1) FROM s GROUP BY k;
