CREATE TABLE t (a INT) WITH ('connector' = 'filesystem', 'path' = '${CASE_DIR}/t.jsonl', 'format' = 'json');
CREATE TABLE p (a INT, b BYTES, c STRING, d BYTES, e BOOLEAN, f BYTES) WITH ('connector' = 'print');
INSERT INTO p SELECT a, X'FF00', CAST(X'4142' AS STRING), x'0a', X'0102' = X'0102', X'' FROM t;
