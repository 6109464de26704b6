CREATE TABLE ev (id INT, k STRING, v INT, d DOUBLE, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/ev.jsonl', 'format' = 'json');
CREATE TEMPORARY VIEW inner_w AS SELECT k, window_start AS ws, window_end AS we, window_time AS rt, COUNT(*) AS n, SUM(v) AS s FROM
  TABLE(TUMBLE(TABLE ev, DESCRIPTOR(ts), INTERVAL '5' SECOND)) WHERE window_start <> TIMESTAMP '2024-01-01 00:00:05'
  GROUP BY k, window_start, window_end, window_time;
CREATE TABLE out_rows (window_start TIMESTAMP(3), window_end TIMESTAMP(3), n BIGINT, s INT, c BIGINT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT window_start, window_end, SUM(n), SUM(s), COUNT(*) FROM TABLE(TUMBLE(TABLE inner_w, DESCRIPTOR(rt), INTERVAL '10' SECOND))
  GROUP BY window_start, window_end;
