CREATE TABLE ev (id INT, k STRING, v INT, ts TIMESTAMP(3), pt AS PROCTIME()) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/ev.jsonl', 'format' = 'json');
CREATE TABLE out_rows (window_start TIMESTAMP(3), id INT, rn BIGINT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT window_start, id, rn FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY v DESC) AS rn
  FROM (SELECT * FROM TABLE(TUMBLE(TABLE ev, DESCRIPTOR(pt), INTERVAL '10' SECOND)) WHERE v > 0))
WHERE rn <= 2;
