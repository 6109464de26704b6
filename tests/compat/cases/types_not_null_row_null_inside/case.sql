CREATE TABLE s (id INT, r ROW<a INT NOT NULL>) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/in.jsonl', 'format' = 'json');
CREATE TABLE out_rows (id INT, r ROW<a INT NOT NULL>, a INT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT id, r, r.a FROM s;
