CREATE TABLE t (id INT, g STRING, v INT, s STRING, sec INT, ts AS TIMESTAMPADD(SECOND, sec, TIMESTAMP '2024-01-01 00:00:00'), WATERMARK FOR ts AS ts) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/t.jsonl', 'format' = 'json');
CREATE TABLE out_rows (id INT, g STRING, lv INT, lv2 INT, ls STRING) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT id, g, LAG(v) OVER w AS lv, LAG(v, 2, -1) OVER w AS lv2, LAG(s, 1, 'none') OVER w AS ls FROM t WINDOW w AS (PARTITION BY g ORDER BY ts);
