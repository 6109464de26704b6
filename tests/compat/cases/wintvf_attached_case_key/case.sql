CREATE TABLE ev (id INT, k STRING, v INT, d DOUBLE, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/ev.jsonl', 'format' = 'json');
CREATE TABLE out_rows (kk STRING, window_start TIMESTAMP(3), window_end TIMESTAMP(3), n BIGINT, dn BIGINT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT kk, window_start, window_end, COUNT(*), COUNT(DISTINCT v) FILTER (WHERE v > 0) FROM (
  SELECT CASE WHEN window_start >= TIMESTAMP '2024-01-01 00:00:10' THEN k ELSE 'early' END AS kk, v, window_start, window_end
  FROM TABLE(HOP(TABLE ev, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '10' SECOND))) GROUP BY kk, window_start, window_end;
