CREATE TABLE s (id INT, a ARRAY<STRING>, d STRING, r STRING) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/in.jsonl', 'format' = 'json');
CREATE TABLE out_rows (id INT, j2 STRING, j3 STRING, jc STRING, jn STRING) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT id, ARRAY_JOIN(a, d), ARRAY_JOIN(a, d, r), ARRAY_JOIN(a, ','), ARRAY_JOIN(a, '+', 'N') FROM s;
