CREATE TABLE s (id INT, a ARRAY<INT>) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/in.jsonl', 'format' = 'json');
CREATE TABLE out_rows (id INT, e INT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT id, ELEMENT(a) FROM s;
