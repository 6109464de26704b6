CREATE TABLE t (id INT, g STRING, v INT, s STRING, sec INT, ts AS TIMESTAMPADD(SECOND, sec, TIMESTAMP '2024-01-01 00:00:00'), WATERMARK FOR ts AS ts) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/t.jsonl', 'format' = 'json');
CREATE TABLE out_rows (id INT, lv INT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT id, LAG(v, 1, 1.5) OVER (PARTITION BY g ORDER BY ts) AS lv FROM t;
