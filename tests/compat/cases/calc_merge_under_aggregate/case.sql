CREATE TABLE t (id INT, a INT, b INT, s STRING) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/t.jsonl', 'format' = 'json');
CREATE TABLE out_rows (b INT, sq INT, mq INT, c BIGINT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT b, SUM(q), MAX(q), COUNT(*) FROM (SELECT a / b AS q, b FROM t) WHERE b <> 0 GROUP BY b;
