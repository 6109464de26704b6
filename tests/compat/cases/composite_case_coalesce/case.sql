CREATE TABLE s (id INT, p ROW<x INT, s STRING, ts TIMESTAMP(3)>, a ARRAY<INT>) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/in.jsonl', 'format' = 'json');
CREATE TABLE out_rows (id INT, c ROW<x INT, s STRING, ts TIMESTAMP(3)>, d ROW<x INT, s STRING, ts TIMESTAMP(3)>, e INT) WITH ('connector' = 'print');
INSERT INTO out_rows
SELECT id, CASE WHEN id = 1 THEN p ELSE ROW(9, 'z', CAST(NULL AS TIMESTAMP(3))) END,
       COALESCE(p, ROW(8, 'y', CAST(NULL AS TIMESTAMP(3)))), COALESCE(p, ROW(8, 'y', CAST(NULL AS TIMESTAMP(3)))).x
FROM s;
