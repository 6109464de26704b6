CREATE TABLE s (id INT, a ARRAY<INT>, b ARRAY<INT>, x INT) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/in.jsonl', 'format' = 'json');
CREATE TABLE out_rows (id INT, cx BOOLEAN, c1 BOOLEAN, cn BOOLEAN, px INT, p1 INT, dis ARRAY<INT>, rmx ARRAY<INT>,
  rmn ARRAY<INT>, rev ARRAY<INT>, uni ARRAY<INT>, cat2 ARRAY<INT>, cat3 ARRAY<INT>, exc ARRAY<INT>,
  itx ARRAY<INT>, pre ARRAY<INT>, app ARRAY<INT>) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT id, ARRAY_CONTAINS(a, x), ARRAY_CONTAINS(a, 1), ARRAY_CONTAINS(a, CAST(NULL AS INT)),
  ARRAY_POSITION(a, x), ARRAY_POSITION(a, 1), ARRAY_DISTINCT(a), ARRAY_REMOVE(a, x),
  ARRAY_REMOVE(a, CAST(NULL AS INT)), ARRAY_REVERSE(a), ARRAY_UNION(a, b), ARRAY_CONCAT(a, b),
  ARRAY_CONCAT(a, b, a), ARRAY_EXCEPT(a, b), ARRAY_INTERSECT(a, b), ARRAY_PREPEND(a, x), ARRAY_APPEND(a, x)
FROM s;
