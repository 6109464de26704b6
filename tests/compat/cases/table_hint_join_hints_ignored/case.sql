CREATE TABLE t (id INT, v STRING) WITH ('connector' = 'filesystem', 'path' = '${CASE_DIR}/t.jsonl', 'format' = 'json');
CREATE TABLE d (id INT, w STRING) WITH ('connector' = 'filesystem', 'path' = '${CASE_DIR}/d.jsonl', 'format' = 'json');
CREATE TABLE out_rows (id INT, v STRING, w STRING) WITH ('connector' = 'print');
INSERT INTO out_rows /*+ shuffle_hash(out_rows) */ SELECT t.id, t.v, x.w FROM t /*+ LOOKUP('table' = 'd'), BROADCAST(zzz) */ JOIN d /*+ STATE_TTL('d' = '1 ms'), MULTI_JOIN(t, d), ALIAS(y) */ AS x ON t.id = x.id;
