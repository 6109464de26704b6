CREATE TABLE t (id INT, k INT, v INT, ts TIMESTAMP(3)) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/t.jsonl', 'format' = 'json');
CREATE TABLE out_rows (id INT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT id FROM t WHERE EXISTS (SELECT 1 FROM t AS s WHERE s.k = t.k AND s.v > 5 LIMIT 1);
