CREATE TABLE s (id INT, k STRING, v INT) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/s.jsonl', 'format' = 'json');
CREATE TABLE out_rows (n BIGINT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT DISTINCT COUNT(*) FROM s GROUP BY k;
