CREATE TABLE ev (id INT, k STRING, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/ev.jsonl', 'format' = 'json');
CREATE TEMPORARY VIEW fv AS SELECT k, v, window_start, window_end, EXTRACT(SECOND FROM window_end) AS e FROM TABLE(CUMULATE(TABLE ev, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '10' SECOND)) WHERE window_end > TIMESTAMP '2024-01-01 00:00:05';
CREATE TABLE out_rows (k STRING, window_start TIMESTAMP(3), window_end TIMESTAMP(3), n BIGINT, e BIGINT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT k, window_start, window_end, COUNT(*), SUM(e) FROM fv GROUP BY k, window_start, window_end;
