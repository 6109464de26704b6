CREATE TABLE l (id INT, t TIME) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/l.jsonl', 'format' = 'json');
CREATE TABLE r (name STRING, t TIME(3)) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/r.jsonl', 'format' = 'json');
CREATE TABLE out_rows (id INT, name STRING, lt TIME, rt TIME(3)) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT l.id, r.name, l.t, r.t FROM l JOIN r ON l.t = r.t;
