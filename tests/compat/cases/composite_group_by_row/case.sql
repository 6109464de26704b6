CREATE TABLE s (id INT, p ROW<x INT, s STRING>, a ARRAY<INT>) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/in.jsonl', 'format' = 'json');
CREATE TABLE out_rows (p ROW<x INT, s STRING>, a ARRAY<INT>, n BIGINT, ids INT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT p, a, COUNT(*), SUM(id) FROM s GROUP BY p, a;
