CREATE TABLE t (id INT, g STRING, h INT, v INT, d DECIMAL(10, 2), s STRING, sec INT, p AS PROCTIME()) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/t.jsonl', 'format' = 'json');
CREATE TABLE out_rows (id INT, la ARRAY<INT>, lr ROW<g STRING, v INT>, ld DECIMAL(12, 3), lb BOOLEAN, ldt DATE) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT id, LAG(ARRAY[v, id]) OVER w, LAG(ROW(g, v)) OVER w, LAG(CAST(d AS DECIMAL(12, 3)), 2) OVER w, LAG(v > 5) OVER w, LAG(DATE '2024-01-01' + sec * INTERVAL '1' DAY) OVER w FROM t WINDOW w AS (PARTITION BY h ORDER BY p);
