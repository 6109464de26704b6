CREATE TABLE s (id INT, a ARRAY<INT NOT NULL>, m MAP<STRING, INT NOT NULL>, r ROW<a ROW<b INT>>, n ROW<a INT NOT NULL 'the a'>) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/in.jsonl', 'format' = 'json');
CREATE TABLE out_rows (id INT, a ARRAY<INT NOT NULL>, m MAP<STRING, INT NOT NULL>, r ROW<a ROW<b INT>>, n ROW<a INT NOT NULL 'the a'>, b INT, na INT, ca INT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT id, a, m, r, n, r.a.b, n.a, CARDINALITY(a) FROM s;
