CREATE TABLE oc (id INT, k INT, v INT, PRIMARY KEY (id) NOT ENFORCED) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/oc.jsonl', 'format' = 'debezium-json');
CREATE TABLE rn (id INT, k INT, v INT) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/rn.jsonl', 'format' = 'json');
CREATE TABLE out_rows (id INT, k INT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT id, k FROM oc WHERE k IN (SELECT k FROM rn);
