CREATE TABLE Ticker (symbol STRING, price BIGINT, tax BIGINT, rowtime TIMESTAMP(3),
  WATERMARK FOR rowtime AS rowtime - INTERVAL '1' SECOND) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/ticker.jsonl', 'format' = 'json');
CREATE TABLE out_rows (symbol STRING, dropTime TIMESTAMP(3), dropDiff BIGINT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT * FROM Ticker MATCH_RECOGNIZE (
  PARTITION BY symbol ORDER BY rowtime
  MEASURES C.rowtime AS dropTime, A.price - C.price AS dropDiff
  ONE ROW PER MATCH
  AFTER MATCH SKIP PAST LAST ROW
  PATTERN (A B* C) WITHIN INTERVAL '1' HOUR
  DEFINE B AS B.price > A.price - 10, C AS C.price < A.price - 10
) MR;
