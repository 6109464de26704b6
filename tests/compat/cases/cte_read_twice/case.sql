CREATE TABLE s (id INT, k STRING, v INT) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/s.jsonl', 'format' = 'json');
CREATE TABLE out_rows (id INT, k STRING) WITH ('connector' = 'print');
INSERT INTO out_rows WITH x AS (SELECT id, k FROM s) SELECT id, k FROM x WHERE id < 3 UNION ALL SELECT id, k FROM x WHERE k = 'a';
