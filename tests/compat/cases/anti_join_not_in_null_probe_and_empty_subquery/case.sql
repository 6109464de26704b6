CREATE TABLE o (id INT, k INT, v INT) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/o.jsonl', 'format' = 'json');
CREATE TABLE rn (id INT, k INT, v INT) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/rn.jsonl', 'format' = 'json');
CREATE TABLE out_rows (branch STRING, id INT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT 'some', id FROM o WHERE k NOT IN (SELECT k FROM rn)
UNION ALL SELECT 'empty', id FROM o WHERE k NOT IN (SELECT k FROM rn WHERE v > 100);
