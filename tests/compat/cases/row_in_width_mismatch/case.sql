CREATE TABLE o (id INT, a INT, b STRING) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/o.jsonl', 'format' = 'json');
CREATE TABLE r (id INT, x INT, y STRING, w INT) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/r.jsonl', 'format' = 'json');
CREATE TABLE out_rows (id INT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT id FROM o WHERE (a, b) IN (SELECT x FROM r);
