CREATE TABLE b (id INT, v INT, p ROW<x INT, s STRING>) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/in.jsonl', 'format' = 'json',
  'json.ignore-parse-errors' = 'true');
CREATE TABLE out_rows (id INT, v INT, px INT, ps STRING) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT id, v, p.x, p.s FROM b;
