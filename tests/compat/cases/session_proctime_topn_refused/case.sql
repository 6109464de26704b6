CREATE TABLE ev (id INT, k STRING, v INT, ts TIMESTAMP(3), pt AS PROCTIME()) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/ev.jsonl', 'format' = 'json');
CREATE TABLE out_rows (window_start TIMESTAMP(3), id INT, rn BIGINT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT window_start, id, rn FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end, k ORDER BY v DESC) AS rn
  FROM TABLE(SESSION(TABLE ev PARTITION BY k, DESCRIPTOR(pt), INTERVAL '4' SECOND)))
WHERE rn <= 2;
