CREATE TABLE t (id INT, v STRING, ts AS TIMESTAMP '2026-01-01 00:00:00', WATERMARK FOR ts AS ts) WITH ('connector' = 'filesystem', 'path' = '${CASE_DIR}/t.jsonl', 'format' = 'json');
CREATE TABLE out_rows (id INT, v STRING) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT id, v FROM TABLE(TUMBLE(TABLE t /*+ OPTIONS('json.ignore-parse-errors' = 'true') */, DESCRIPTOR(ts), INTERVAL '1' HOUR));
