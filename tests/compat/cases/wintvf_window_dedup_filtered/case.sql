CREATE TABLE ev (id INT, k STRING, v INT, d DOUBLE, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/ev.jsonl', 'format' = 'json');
CREATE TABLE out_rows (window_start TIMESTAMP(3), window_end TIMESTAMP(3), k STRING, id INT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT window_start, window_end, k, id FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end, k
  ORDER BY ts ASC) AS rn FROM (SELECT * FROM TABLE(CUMULATE(TABLE ev, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '15' SECOND)) WHERE v <> 3)) WHERE rn = 1;
