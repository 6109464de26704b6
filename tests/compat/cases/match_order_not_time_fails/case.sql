CREATE TABLE Ticker (symbol STRING, price BIGINT, tax BIGINT, rowtime TIMESTAMP(3),
  WATERMARK FOR rowtime AS rowtime - INTERVAL '1' SECOND) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/ticker.jsonl', 'format' = 'json');
CREATE TABLE out_rows (symbol STRING, p BIGINT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT symbol, p FROM Ticker MATCH_RECOGNIZE (
  PARTITION BY symbol ORDER BY price
  MEASURES A.price AS p
  PATTERN (A B)
  DEFINE A AS A.price > 0
) MR;
