CREATE TABLE s (id INT, k STRING, v INT) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/s.jsonl', 'format' = 'json');
CREATE TABLE t (id INT, k STRING, v INT) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/t.jsonl', 'format' = 'json');
CREATE TABLE out_rows (name STRING, n INT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT CAST(id AS STRING) AS name, v AS n FROM s INTERSECT SELECT CAST(id - 9 AS STRING), v FROM t;
