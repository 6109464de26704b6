CREATE TABLE ev (id INT, k STRING, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/ev.jsonl', 'format' = 'json');
CREATE TEMPORARY VIEW sv AS SELECT k AS kk, v, window_start, window_end
  FROM TABLE(SESSION(TABLE ev PARTITION BY k, DESCRIPTOR(ts), INTERVAL '4' SECOND)) WHERE v <> 5;
CREATE TABLE out_rows (kk STRING, window_start TIMESTAMP(3), window_end TIMESTAMP(3), n BIGINT, mn INT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT kk, window_start, window_end, COUNT(*), MIN(v) FROM sv GROUP BY kk, window_start, window_end;
