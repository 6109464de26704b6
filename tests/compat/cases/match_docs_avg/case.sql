CREATE TABLE Ticker (symbol STRING, price BIGINT, tax BIGINT, rowtime TIMESTAMP(3),
  WATERMARK FOR rowtime AS rowtime - INTERVAL '1' SECOND) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/ticker.jsonl', 'format' = 'json');
CREATE TABLE out_rows (symbol STRING, start_tstamp TIMESTAMP(3), end_tstamp TIMESTAMP(3), avgPrice BIGINT, n BIGINT, s BIGINT, lo BIGINT, hi BIGINT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT * FROM Ticker MATCH_RECOGNIZE (
  PARTITION BY symbol ORDER BY rowtime
  MEASURES FIRST(A.rowtime) AS start_tstamp, LAST(A.rowtime) AS end_tstamp, AVG(A.price) AS avgPrice,
    COUNT(A.price) AS n, SUM(A.price * A.tax) AS s, MIN(price) AS lo, MAX(A.price) AS hi
  ONE ROW PER MATCH
  AFTER MATCH SKIP PAST LAST ROW
  PATTERN (A+ B)
  DEFINE A AS AVG(A.price) < 15
) MR;
