CREATE TABLE t (k INT, b BINARY(2), v VARBINARY(2), y BYTES) WITH ('connector' = 'filesystem', 'path' = '${CASE_DIR}/t.jsonl', 'format' = 'json');
CREATE TABLE p (k INT, b BINARY(2), v VARBINARY(2), y BYTES, eq BOOLEAN, bs STRING, vs STRING) WITH ('connector' = 'print');
INSERT INTO p SELECT k, b, v, y, b = v, CAST(b AS STRING), CAST(v AS STRING) FROM t;
