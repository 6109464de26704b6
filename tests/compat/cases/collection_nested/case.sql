CREATE TABLE s (id INT, a ARRAY<ARRAY<INT>>, r ARRAY<ROW<x INT, y STRING>>) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/in.jsonl', 'format' = 'json');
CREATE TABLE out_rows (id INT, ad ARRAY<ARRAY<INT>>, ac BOOLEAN, ap INT, arv ARRAY<ARRAY<INT>>, rd ARRAY<ROW<x INT, y STRING>>,
  rrv ARRAY<ROW<x INT, y STRING>>, rcat ARRAY<ROW<x INT, y STRING>>, arm ARRAY<ARRAY<INT>>, acn BOOLEAN)
  WITH ('connector' = 'print');
INSERT INTO out_rows SELECT id, ARRAY_DISTINCT(a), ARRAY_CONTAINS(a, ARRAY[1, 2]), ARRAY_POSITION(a, ARRAY[3]),
  ARRAY_REVERSE(a), ARRAY_DISTINCT(r), ARRAY_REVERSE(r), ARRAY_CONCAT(r, r), ARRAY_REMOVE(a, ARRAY[1, 2]),
  ARRAY_CONTAINS(a, CAST(NULL AS ARRAY<INT>)) FROM s;
