CREATE TABLE ev (k STRING, t TINYINT, s SMALLINT, i INT, b BIGINT, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/ev.jsonl', 'format' = 'json');
CREATE TABLE out_rows (k STRING, window_start TIMESTAMP(3), st TINYINT, ss SMALLINT, si INT, sb BIGINT, avt TINYINT,
  ovt TINYINT) WITH ('connector' = 'print');
INSERT INTO out_rows
SELECT w.k, w.window_start, w.st, w.ss, w.si, w.sb, w.avt, o.ovt
FROM (SELECT k, window_start, SUM(t) AS st, SUM(s) AS ss, SUM(i) AS si, SUM(b) AS sb, AVG(t) AS avt
      FROM TABLE(TUMBLE(TABLE ev, DESCRIPTOR(ts), INTERVAL '10' SECOND))
      GROUP BY k, window_start, window_end) AS w
JOIN (SELECT k, MIN(ovt) AS ovt FROM (
        SELECT k, SUM(t) OVER (PARTITION BY k ORDER BY ts ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS ovt
        FROM ev) GROUP BY k) AS o
ON w.k = o.k;
