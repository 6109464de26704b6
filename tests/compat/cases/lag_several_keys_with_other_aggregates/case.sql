CREATE TABLE t (id INT, g STRING, h INT, v INT, d DECIMAL(10, 2), s STRING, sec INT, ts AS TIMESTAMPADD(SECOND, sec, TIMESTAMP '2024-01-01 00:00:00'), WATERMARK FOR ts AS ts) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/t.jsonl', 'format' = 'json');
CREATE TABLE out_rows (id INT, ld DECIMAL(10, 2), ls STRING, lv INT, c BIGINT, sv INT, mx DECIMAL(10, 2)) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT id, LAG(d, 1, CAST(0 AS DECIMAL(10, 2))) OVER w AS ld, LAG(s, 2) OVER w AS ls, LAG(v, 3) OVER w AS lv, COUNT(*) OVER w AS c, SUM(v) OVER w AS sv, MAX(d) OVER w AS mx FROM t WINDOW w AS (PARTITION BY g, h ORDER BY ts);
