CREATE TABLE ev (id INT, k STRING, v BIGINT, p INT) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/ev.jsonl', 'format' = 'json');
CREATE TABLE out_rows (x INT) WITH ('connector' = 'print');
CREATE OR REPLACE TABLE out_rows WITH ('connector' = 'print') AS SELECT k, SUM(v) AS s FROM ev GROUP BY k;
