CREATE TABLE ev (id INT, k STRING, v BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '2' SECOND) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/ev.jsonl', 'format' = 'json');
CREATE TABLE out_rows (id INT, k STRING, v BIGINT, ts TIMESTAMP(3)) WITH ('connector' = 'print');
INSERT INTO out_rows
SELECT id, k, v, ts FROM (SELECT * FROM ev ORDER BY ts, k) WHERE id > 1;
