CREATE TABLE Ticker (symbol STRING, price BIGINT, tax BIGINT, rowtime TIMESTAMP(3),
  WATERMARK FOR rowtime AS rowtime - INTERVAL '1' SECOND) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/ticker.jsonl', 'format' = 'json');
CREATE TABLE out_rows (symbol STRING, a BIGINT, c BIGINT, nb BIGINT, t TIMESTAMP(3)) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT * FROM Ticker MATCH_RECOGNIZE (
  PARTITION BY symbol ORDER BY rowtime
  MEASURES A.price AS a, C.price AS c, COUNT(B.price) AS nb, MATCH_ROWTIME() AS t
  AFTER MATCH SKIP TO NEXT ROW
  PATTERN (A B*? C) WITHIN INTERVAL '3' SECOND
  DEFINE B AS B.price < A.price, C AS C.price > A.price + 10
) MR;
