CREATE TABLE t (id INT, g STRING, v INT, s STRING, sec INT, ts AS TIMESTAMPADD(SECOND, sec, TIMESTAMP '2024-01-01 00:00:00'), WATERMARK FOR ts AS ts) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/t.jsonl', 'format' = 'json');
CREATE TABLE out_rows (id INT, g STRING, l0 INT, ls0 STRING, l1 INT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT id, g, LAG(v, -1) OVER w AS l0, s AS ls0, v AS l1 FROM t WINDOW w AS (PARTITION BY g ORDER BY ts);
