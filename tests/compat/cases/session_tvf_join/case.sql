CREATE TABLE ev (id INT, k STRING, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/ev.jsonl', 'format' = 'json');
CREATE TABLE out_rows (k STRING, id INT, rid INT, w INT, window_start TIMESTAMP(3), window_end TIMESTAMP(3)) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT L.k, L.id, R.id, R.w, L.window_start, L.window_end FROM
  (SELECT * FROM TABLE(SESSION(TABLE ev PARTITION BY k, DESCRIPTOR(ts), INTERVAL '4' SECOND)) WHERE v <> 5) L
  JOIN (SELECT k, id, v * 2 AS w, window_start, window_end FROM TABLE(SESSION(TABLE ev PARTITION BY k, DESCRIPTOR(ts), INTERVAL '4' SECOND))) R
  ON L.window_start = R.window_start AND L.window_end = R.window_end AND L.k = R.k;
