CREATE TABLE s (id INT, a ARRAY<INT>) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/in.jsonl', 'format' = 'json');
CREATE TABLE out_rows (id INT, e INT, o INT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT id, e, o FROM s CROSS JOIN UNNEST(a) WITH ORDINALITY AS u(e, o) WHERE e IS NULL OR e > 1;
