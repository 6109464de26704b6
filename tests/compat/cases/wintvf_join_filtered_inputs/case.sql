CREATE TABLE ev (id INT, k STRING, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/ev.jsonl', 'format' = 'json');
CREATE TABLE out_rows (k STRING, id INT, rid INT, w INT, window_start TIMESTAMP(3)) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT L.k, L.id, R.id, R.w, L.window_start FROM
  (SELECT * FROM TABLE(TUMBLE(TABLE ev, DESCRIPTOR(ts), INTERVAL '10' SECOND)) WHERE window_start > ts - INTERVAL '8' SECOND) L
  LEFT JOIN (SELECT k, id, v * 2 AS w, window_start, window_end FROM TABLE(TUMBLE(TABLE ev, DESCRIPTOR(ts), INTERVAL '10' SECOND)) WHERE v > 2) R
  ON L.window_start = R.window_start AND L.window_end = R.window_end AND L.k = R.k;
