CREATE TABLE ev (id INT, k STRING, v BIGINT, p INT) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/ev.jsonl', 'format' = 'json');
CREATE OR REPLACE TABLE out_rows (note STRING, v DOUBLE) WITH ('connector' = 'print') AS SELECT id, v FROM ev WHERE p IS NOT NULL;
