CREATE TABLE t (id INT, k INT, v INT, ts TIMESTAMP(3)) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/t.jsonl', 'format' = 'json');
CREATE TABLE out_rows (id INT, k INT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT id, k FROM t ORDER BY v * k, id LIMIT 4;
