CREATE TABLE a (id INT, sec INT, pts TIMESTAMP(0), ts AS TIMESTAMPADD(SECOND, sec, TIMESTAMP '2024-01-01 00:00:00'), WATERMARK FOR pts AS pts) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/t.jsonl', 'format' = 'json');
CREATE TABLE out_rows (id INT, a STRING, b STRING, d STRING, e STRING, f STRING, l STRING) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT id, CAST(pts AS STRING), CAST(ts AS STRING), CAST(pts + INTERVAL '1' SECOND AS STRING), CAST(TIMESTAMPADD(SECOND, 1, pts) AS STRING), TYPEOF(pts), CAST(LAG(pts) OVER (ORDER BY pts) AS STRING) FROM a;
