CREATE TABLE ev (id INT, k STRING, v BIGINT, p INT) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/ev.jsonl', 'format' = 'json');
CREATE TABLE out_rows (id INT, k STRING, p INT, n BIGINT, s BIGINT) WITH ('connector' = 'print');
INSERT INTO out_rows
SELECT id, k, p, COUNT(*) OVER w, SUM(v) OVER w FROM ev WINDOW w AS (ORDER BY p RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW);
