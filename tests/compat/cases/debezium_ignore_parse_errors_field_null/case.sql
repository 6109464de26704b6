CREATE TABLE b (id INT, v INT, s STRING, t TIMESTAMP(3)) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/in.jsonl', 'format' = 'debezium-json',
  'debezium-json.ignore-parse-errors' = 'true');
CREATE TABLE out_rows (id INT, v INT, s STRING, t TIMESTAMP(3)) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT id, v, s, t FROM b;
