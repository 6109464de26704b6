CREATE TABLE Ticker (symbol STRING, price BIGINT, tax BIGINT, rowtime TIMESTAMP(3),
  WATERMARK FOR rowtime AS rowtime - INTERVAL '1' SECOND) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/ticker.jsonl', 'format' = 'json');
CREATE TABLE out_rows (symbol STRING, a BIGINT, n BIGINT, c BIGINT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT * FROM Ticker MATCH_RECOGNIZE (
  PARTITION BY symbol ORDER BY rowtime
  MEASURES A.price AS a, COUNT(B.price) AS n, C.price AS c
  AFTER MATCH SKIP PAST LAST ROW
  PATTERN (A B+? C)
  DEFINE A AS CASE tax WHEN 0 THEN price > 5 ELSE FALSE END,
    B AS ABS(B.price - COALESCE(LAST(B.price, 1), A.price)) < CASE WHEN A.price > 20 THEN 15 ELSE 10 END,
    C AS C.price > COALESCE(LAST(B.price), 0) + 5
) MR;
