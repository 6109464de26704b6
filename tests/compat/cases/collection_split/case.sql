CREATE TABLE src (id INT, s STRING, d STRING) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/in.jsonl', 'format' = 'json');
CREATE TABLE out_rows (id INT, sd ARRAY<STRING>, sc ARRAY<STRING>, n INT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT id, SPLIT(s, d), SPLIT(s, ','), CARDINALITY(SPLIT(s, d)) FROM src;
