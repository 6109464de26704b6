CREATE TABLE t (id INT, s STRING) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/t.jsonl', 'format' = 'json');
CREATE TABLE out_rows (id INT, u BOOLEAN, p BOOLEAN, bb BOOLEAN, b BOOLEAN, e BOOLEAN, ne BOOLEAN) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT id, s LIKE 'a\_b', s LIKE 'a\%b', s LIKE 'a\\b', s LIKE 'a\_', s LIKE 'a!_b' ESCAPE '!', s NOT LIKE 'a\_b'
FROM t;
