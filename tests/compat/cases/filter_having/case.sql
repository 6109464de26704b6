CREATE TABLE s (id INT, k STRING, v INT) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/s.jsonl', 'format' = 'json');
CREATE TABLE out_rows (k STRING, share BIGINT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT k, COUNT(*) FILTER (WHERE v = 1) * 10 FROM s GROUP BY k HAVING COUNT(*) FILTER (WHERE id > 1) >= 2;
