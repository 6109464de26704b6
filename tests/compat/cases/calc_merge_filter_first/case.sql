CREATE TABLE t (id INT, a INT, b INT, s STRING) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/t.jsonl', 'format' = 'json');
CREATE TABLE u (id INT, w STRING) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/u.jsonl', 'format' = 'json');
CREATE VIEW v AS SELECT id, CAST(s AS INT) AS n, s FROM t;
CREATE TABLE out_rows (shape STRING, id INT, q INT) WITH ('connector' = 'print');
INSERT INTO out_rows
SELECT 'subquery', id, q FROM (SELECT id, a / b AS q, b FROM t) WHERE b <> 0
UNION ALL SELECT 'view', id, n FROM v WHERE s NOT IN ('x', 'abc')
UNION ALL SELECT 'two levels', id, q FROM (SELECT id, q + 1 AS q, b FROM (SELECT id, a / b AS q, b FROM t)) WHERE b <> 0
UNION ALL SELECT 'two filters', id, q FROM (SELECT * FROM (SELECT id, a / b AS q, b FROM t WHERE id > 0) WHERE b <> 0) WHERE id < 5
UNION ALL SELECT 'and', id, q FROM (SELECT id, a / b AS q, b FROM t) WHERE b <> 0 AND q > 1 AND q < 10
UNION ALL SELECT 'used twice', q * 2, q + 1 FROM (SELECT id, a / b AS q, b FROM t) WHERE b <> 0
UNION ALL SELECT 'cast to string', id, CHAR_LENGTH(q) FROM (SELECT id, CAST(a / b AS STRING) AS q, b FROM t) WHERE b <> 0
UNION ALL SELECT 'rand once', id, q FROM (SELECT id, a / b AS q, b, RAND() AS r FROM t) WHERE b <> 0 AND r < 2
UNION ALL SELECT 'join', x.id, x.q FROM (SELECT id, a / b AS q, b FROM t) x JOIN u ON x.id = u.id WHERE x.b <> 0;
