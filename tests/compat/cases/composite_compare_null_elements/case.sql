CREATE TABLE s (id INT, a ARRAY<INT>, m MAP<STRING, INT>) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/in.jsonl', 'format' = 'json');
CREATE TABLE out_rows (id INT, eq BOOLEAN, ne BOOLEAN, m_eq BOOLEAN, m_ne BOOLEAN, self_eq BOOLEAN, eq_full BOOLEAN, m_eq_full BOOLEAN, m_eq_order BOOLEAN) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT id, a = ARRAY[1, CAST(NULL AS INT), 3], a <> ARRAY[1, CAST(NULL AS INT), 3], m = MAP['k', 1, 'j', CAST(NULL AS INT)], m <> MAP['k', 1, 'j', CAST(NULL AS INT)], a = a, a = ARRAY[1, 2, 3], m = MAP['k', 1, 'j', 2], m = MAP['j', 2, 'k', 1] FROM s;
