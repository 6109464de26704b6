CREATE TABLE s (id INT, a ARRAY<INT>, m MAP<STRING, INT>) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/in.jsonl', 'format' = 'json');
CREATE TABLE out_rows (id INT, a ARRAY<INT>, m MAP<STRING, INT>, a2 INT, ai INT, mk INT, ca INT, cm INT, arr ARRAY<INT>, mp MAP<STRING, INT>, r ROW<a INT, b STRING>, t ROW<a INT, b STRING>) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT id, a, m, a[2], a[id], m['k'], CARDINALITY(a), CARDINALITY(m), ARRAY[id, 2], MAP['k', id], ROW(id, 'q'), (id, 'b') FROM s;
