CREATE TABLE s (id INT, k STRING, v INT) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/s.jsonl', 'format' = 'json');
CREATE TABLE out_rows (k STRING, n BIGINT) WITH ('connector' = 'print');
INSERT INTO out_rows WITH pos AS (SELECT k, v FROM s WHERE v IS NOT NULL), agg AS (SELECT k, COUNT(v) AS n FROM pos GROUP BY k) SELECT k, n FROM agg WHERE n > 1;
