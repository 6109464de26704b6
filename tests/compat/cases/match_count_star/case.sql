CREATE TABLE Ticker (symbol STRING, price BIGINT, tax BIGINT, rowtime TIMESTAMP(3),
  WATERMARK FOR rowtime AS rowtime - INTERVAL '1' SECOND) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/ticker.jsonl', 'format' = 'json');
CREATE TABLE out_rows (symbol STRING, n BIGINT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT * FROM Ticker MATCH_RECOGNIZE (
  PARTITION BY symbol ORDER BY rowtime
  MEASURES COUNT(*) AS n
  PATTERN (A B+? C)
  DEFINE A AS A.price > 20, C AS C.price < A.price
) MR;
