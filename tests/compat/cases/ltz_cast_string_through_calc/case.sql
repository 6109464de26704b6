CREATE TABLE t (id INT, tl TIMESTAMP_LTZ(3), k AS id + 1) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/t.jsonl', 'format' = 'json');
CREATE TABLE out_rows (id INT, direct STRING, filtered STRING) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT id, CAST(tl AS STRING), CAST(f AS STRING)
FROM (SELECT id, tl, tl AS f FROM t WHERE id > 0);
