CREATE TABLE s (id INT, a ARRAY<INT NOT NULL>) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/in.jsonl', 'format' = 'json');
CREATE TABLE out_rows (id INT, a ARRAY<INT NOT NULL>, c INT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT id, a, CARDINALITY(a) FROM s;
