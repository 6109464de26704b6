CREATE TABLE ev (id INT, k STRING, v INT, d DOUBLE, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/ev.jsonl', 'format' = 'json');
CREATE TABLE out_rows (window_start TIMESTAMP(3), id INT, v INT, rn BIGINT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT window_start, id, v, rn FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end
  ORDER BY v DESC) AS rn FROM (SELECT * FROM TABLE(TUMBLE(TABLE ev, DESCRIPTOR(ts), INTERVAL '10' SECOND)) WHERE window_end > TIMESTAMP '2024-01-01 00:00:10')) WHERE rn <= 2;
