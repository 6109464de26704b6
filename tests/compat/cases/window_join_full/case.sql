CREATE TABLE l (id INT, k STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '2' SECOND) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/l.jsonl', 'format' = 'json');
CREATE TABLE r (id INT, k STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '2' SECOND) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/r.jsonl', 'format' = 'json');
CREATE TABLE out_rows (lid INT, rid INT, lk STRING, rk STRING, lws TIMESTAMP(3), rws TIMESTAMP(3)) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT L.id, R.id, L.k, R.k, L.window_start, R.window_start FROM (SELECT * FROM TABLE(TUMBLE(TABLE l, DESCRIPTOR(ts), INTERVAL '10' SECOND))) L FULL JOIN (SELECT * FROM TABLE(TUMBLE(TABLE r, DESCRIPTOR(ts), INTERVAL '10' SECOND))) R ON L.window_start = R.window_start AND L.window_end = R.window_end AND L.k = R.k;
