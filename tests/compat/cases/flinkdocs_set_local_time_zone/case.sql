SET 'table.local-time-zone' = 'Europe/Berlin';
CREATE TABLE t (id INT, ts_ltz TIMESTAMP_LTZ(3)) WITH ('connector' = 'filesystem', 'path' = '${CASE_DIR}/t.jsonl', 'format' = 'json');
CREATE TABLE out_rows (id INT, s STRING, d DATE) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT id, CAST(ts_ltz AS STRING), CAST(ts_ltz AS DATE) FROM t;
