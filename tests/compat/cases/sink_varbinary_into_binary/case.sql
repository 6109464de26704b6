CREATE TABLE t (id INT, y BYTES) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/t.jsonl', 'format' = 'json');
CREATE TABLE out_rows (id INT, b BINARY(4)) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT id, x FROM (SELECT id, y AS x FROM t WHERE id > 0);
