CREATE TABLE ev (g INT, k STRING, x INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/ev.jsonl', 'format' = 'json');
CREATE TABLE out_rows (cnt BIGINT, o STRING) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT cnt, JSON_OBJECTAGG(KEY CAST(g AS STRING) VALUE mx)
FROM (SELECT g, COUNT(*) AS cnt, MAX(x) AS mx FROM ev GROUP BY g) GROUP BY cnt;
