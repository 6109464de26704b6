CREATE TABLE ev (k STRING, t TINYINT, s SMALLINT, i INT, b BIGINT, ts TIMESTAMP(3)) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/ev.jsonl', 'format' = 'json');
CREATE TABLE out_rows (k STRING, st TINYINT, ss SMALLINT, si INT, sb BIGINT, avt TINYINT, ab BIGINT, sdt TINYINT,
  n BIGINT) WITH ('connector' = 'print');
INSERT INTO out_rows
SELECT k, SUM(t), SUM(s), SUM(i), SUM(b), AVG(t), AVG(b), SUM(DISTINCT t), COUNT(*)
FROM (SELECT k, MOD(SECOND(ts), 2) AS p, SUM(t) AS t, SUM(s) AS s, SUM(i) AS i, SUM(b) AS b
      FROM ev GROUP BY k, MOD(SECOND(ts), 2))
GROUP BY k;
