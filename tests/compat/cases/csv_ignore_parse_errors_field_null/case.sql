CREATE TABLE b (id INT, v INT, s STRING) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/in.csv', 'format' = 'csv',
  'csv.ignore-parse-errors' = 'true');
CREATE TABLE out_rows (id INT, v INT, s STRING) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT id, v, s FROM b;
