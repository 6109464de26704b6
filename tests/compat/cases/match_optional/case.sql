CREATE TABLE Ticker (symbol STRING, price BIGINT, tax BIGINT, rowtime TIMESTAMP(3),
  WATERMARK FOR rowtime AS rowtime - INTERVAL '1' SECOND) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/ticker.jsonl', 'format' = 'json');
CREATE TABLE out_rows (symbol STRING, firstA BIGINT, lastA BIGINT, na BIGINT, b BIGINT, t TIMESTAMP(3)) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT * FROM Ticker MATCH_RECOGNIZE (
  PARTITION BY symbol ORDER BY rowtime
  MEASURES FIRST(A.price) AS firstA, LAST(A.price) AS lastA, COUNT(A.price) AS na, LAST(price) AS b,
    MATCH_ROWTIME() AS t
  ONE ROW PER MATCH
  AFTER MATCH SKIP TO NEXT ROW
  PATTERN (S A? B)
  DEFINE A AS LAST(price, 1) IS NULL OR A.price > LAST(price, 1), B AS B.price < LAST(price, 1)
) MR;
