CREATE TABLE Ticker (symbol STRING, price BIGINT, tax BIGINT, rowtime TIMESTAMP(3),
  WATERMARK FOR rowtime AS rowtime - INTERVAL '1' SECOND) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/ticker.jsonl', 'format' = 'json');
CREATE TABLE out_rows (symbol STRING, a BIGINT, bs BIGINT, nb BIGINT, c BIGINT, t TIMESTAMP(3)) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT * FROM Ticker MATCH_RECOGNIZE (
  PARTITION BY symbol ORDER BY rowtime
  MEASURES A.price AS a, SUM(B.price) AS bs, COUNT(B.price) AS nb, C.price AS c, MATCH_ROWTIME() AS t
  AFTER MATCH SKIP TO NEXT ROW
  PATTERN (A B{1,3} C)
  DEFINE B AS B.price > 10, C AS C.price > 5
) MR;
