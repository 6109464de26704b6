CREATE TABLE ev (id INT, k STRING, v INT, d DOUBLE, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/ev.jsonl', 'format' = 'json');
CREATE TABLE out_rows (ws TIMESTAMP(3), we TIMESTAMP(3), s BIGINT, n BIGINT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT ws, we, SUM(x), COUNT(*) FROM (SELECT window_start AS ws, window_end AS we,
  EXTRACT(SECOND FROM window_start) + v AS x FROM TABLE(HOP(TABLE ev, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '10' SECOND))) GROUP BY ws, we;
