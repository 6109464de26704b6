CREATE TABLE s (id INT, k STRING, v INT) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/s.jsonl', 'format' = 'json');
CREATE TABLE out_rows (vv INT, kk STRING) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT DISTINCT v * 2 AS vv, UPPER(k) AS kk FROM s WHERE id > 1;
