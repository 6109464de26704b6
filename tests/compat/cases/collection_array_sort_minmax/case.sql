CREATE TABLE s (id INT, a ARRAY<INT>, s ARRAY<STRING>, up BOOLEAN, nf BOOLEAN) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/in.jsonl', 'format' = 'json');
CREATE TABLE out_rows (id INT, s0 ARRAY<INT>, st ARRAY<INT>, sf ARRAY<INT>, stf ARRAY<INT>, sft ARRAY<INT>,
  scol ARRAY<INT>, sstr ARRAY<STRING>, sstrd ARRAY<STRING>, amax INT, amin INT, smax STRING, smin STRING)
  WITH ('connector' = 'print');
INSERT INTO out_rows SELECT id, ARRAY_SORT(a), ARRAY_SORT(a, TRUE), ARRAY_SORT(a, FALSE), ARRAY_SORT(a, TRUE, FALSE),
  ARRAY_SORT(a, FALSE, TRUE), ARRAY_SORT(a, up, nf), ARRAY_SORT(s), ARRAY_SORT(s, FALSE), ARRAY_MAX(a), ARRAY_MIN(a),
  ARRAY_MAX(s), ARRAY_MIN(s)
FROM s;
