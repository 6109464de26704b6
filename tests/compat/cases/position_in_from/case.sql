CREATE TABLE t (id INT, s STRING, n INT) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/t.jsonl', 'format' = 'json');
CREATE TABLE out_rows (id INT, p INT, e INT, l INT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT id, POSITION('a' IN s FROM n), POSITION('' IN s FROM n), LOCATE('an', s, n) FROM t;
