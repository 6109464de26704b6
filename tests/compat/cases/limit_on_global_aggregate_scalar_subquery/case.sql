CREATE TABLE t (id INT, k INT, v INT, ts TIMESTAMP(3)) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/t.jsonl', 'format' = 'json');
CREATE TABLE out_rows (id INT, m INT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT id, (SELECT MAX(v) FROM t LIMIT 1) AS m FROM t;
