CREATE TABLE ev (id INT, k STRING, v BIGINT, p INT) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/ev.jsonl', 'format' = 'json');
CREATE TABLE out_rows (id INT, k STRING, p INT, s BIGINT) WITH ('connector' = 'print');
INSERT INTO out_rows
SELECT id, k, p, SUM(v) OVER (PARTITION BY k ORDER BY p ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM ev;
