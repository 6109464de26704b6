CREATE TABLE Ticker (symbol STRING, price BIGINT, tax BIGINT, rowtime TIMESTAMP(3),
  WATERMARK FOR rowtime AS rowtime - INTERVAL '1' SECOND) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/ticker.jsonl', 'format' = 'json');
CREATE TABLE out_rows (symbol STRING, sd DOUBLE, mx INT, lu STRING, fd DOUBLE, n BIGINT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT * FROM Ticker MATCH_RECOGNIZE (
  PARTITION BY symbol ORDER BY rowtime
  MEASURES SUM(CAST(DOWN.price AS DOUBLE)) AS sd, MAX(CHAR_LENGTH(DOWN.symbol) + CAST(DOWN.tax AS INT)) AS mx,
    LAST(CONCAT(UP.symbol, CAST(UP.price AS STRING))) AS lu, FIRST(POWER(DOWN.price, 2)) AS fd, COUNT(*) AS n
  AFTER MATCH SKIP PAST LAST ROW
  PATTERN (START_ROW DOWN+ UP)
  DEFINE START_ROW AS CHAR_LENGTH(START_ROW.symbol) >= 3 AND UPPER(START_ROW.symbol) <> 'NONE',
    DOWN AS CAST(DOWN.price AS DOUBLE) < CAST(LAST(price, 1) AS DOUBLE) AND MOD(DOWN.tax, 5) < 4,
    UP AS POWER(UP.price, 2) > POWER(LAST(DOWN.price), 2) AND SUM(CAST(DOWN.tax AS DOUBLE)) > 0
      AND LOWER(UP.symbol) LIKE '%m%' OR UP.price > 20 AND SUBSTRING(UP.symbol, 1, 1) = 'X'
) MR;
