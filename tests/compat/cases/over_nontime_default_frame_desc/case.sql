CREATE TABLE ev (id INT, k STRING, v BIGINT, p INT) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/ev.jsonl', 'format' = 'json');
CREATE TABLE out_rows (id INT, k STRING, p INT, n BIGINT, hi BIGINT) WITH ('connector' = 'print');
INSERT INTO out_rows
SELECT id, k, p, COUNT(v) OVER (PARTITION BY k ORDER BY p DESC), MAX(v) OVER (PARTITION BY k ORDER BY p DESC) FROM ev;
