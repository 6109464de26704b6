CREATE TABLE ev (g INT, k STRING, x INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/ev.jsonl', 'format' = 'json');
CREATE TABLE out_rows (g INT, o STRING) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT g, JSON_OBJECTAGG(KEY k VALUE x) FROM ev GROUP BY g;
