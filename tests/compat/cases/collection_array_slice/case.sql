CREATE TABLE src (id INT, a ARRAY<STRING>, s INT, e INT) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/in.jsonl', 'format' = 'json');
CREATE TABLE out_rows (id INT, se ARRAY<STRING>, s1 ARRAY<STRING>, z2 ARRAY<STRING>, m2 ARRAY<STRING>, ee ARRAY<STRING>)
  WITH ('connector' = 'print');
INSERT INTO out_rows SELECT id, ARRAY_SLICE(a, s, e), ARRAY_SLICE(a, s), ARRAY_SLICE(a, 0, 2), ARRAY_SLICE(a, -2),
  ARRAY_SLICE(a, e, e) FROM src;
