CREATE TABLE t (id INT, g STRING, k INT, v INT) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/t.jsonl', 'format' = 'json');
CREATE TABLE out_rows (id INT, g STRING, c BIGINT) WITH ('connector' = 'print');
CREATE VIEW r AS SELECT g, k, COUNT(*) AS c FROM t GROUP BY ROLLUP (g, k);
INSERT INTO out_rows SELECT t.id, r.g, r.c FROM t JOIN r ON t.g = r.g AND r.k IS NULL;
