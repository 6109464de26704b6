CREATE TABLE s (id INT, m MAP<STRING, INT NOT NULL>) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/in.jsonl', 'format' = 'json');
CREATE TABLE out_rows (id INT, m MAP<STRING, INT NOT NULL>, c INT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT id, m, CARDINALITY(m) FROM s;
