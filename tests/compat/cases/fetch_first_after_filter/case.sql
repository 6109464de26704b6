CREATE TABLE t (id INT, k INT, v INT, ts TIMESTAMP(3)) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/t.jsonl', 'format' = 'json');
CREATE TABLE out_rows (id INT, k INT, w INT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT id, k, v * 2 AS w FROM t WHERE v > 0 OFFSET 1 ROWS FETCH FIRST 3 ROWS ONLY;
