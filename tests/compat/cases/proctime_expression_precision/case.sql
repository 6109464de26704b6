CREATE TABLE src (a INT, b INT, v INT) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/src.jsonl', 'format' = 'json');
CREATE VIEW shifted AS SELECT a, v, PROCTIME() + INTERVAL '1' HOUR AS p, PROCTIME() - INTERVAL '1' SECOND AS q FROM src;
CREATE VIEW counted AS SELECT a, COUNT(*) AS c, PROCTIME() AS pt FROM src GROUP BY a;
CREATE TABLE snk (a INT, lp INT, lq INT, lpt INT) WITH ('connector' = 'print');
INSERT INTO snk SELECT s.a, CHAR_LENGTH(CAST(s.p AS STRING)), CHAR_LENGTH(CAST(s.q AS STRING)), CHAR_LENGTH(CAST(c.pt AS STRING))
FROM shifted AS s JOIN counted AS c ON s.a = c.a;
