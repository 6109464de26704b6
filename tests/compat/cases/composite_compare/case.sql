CREATE TABLE s (id INT, p ROW<x INT, s STRING, ts TIMESTAMP(3)>, a ARRAY<INT>) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/in.jsonl', 'format' = 'json');
CREATE TABLE out_rows (id INT, eq BOOLEAN, eq_null BOOLEAN, ne BOOLEAN, lt BOOLEAN, arr_eq BOOLEAN, isnull BOOLEAN) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT id, p = ROW(1, 'a', TIMESTAMP '2024-01-01 10:00:00.123'), p = ROW(1, 'a', CAST(NULL AS TIMESTAMP(3))), a <> ARRAY[1], p < p, a = ARRAY[1, 2, 3], p IS NULL FROM s;
