CREATE TABLE Ticker (symbol STRING, price BIGINT, tax BIGINT, rowtime TIMESTAMP(3),
  WATERMARK FOR rowtime AS rowtime - INTERVAL '1' SECOND) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/ticker.jsonl', 'format' = 'json');
CREATE TABLE out_rows (symbol STRING, a BIGINT, b BIGINT, n BIGINT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT * FROM Ticker MATCH_RECOGNIZE (
  PARTITION BY symbol ORDER BY rowtime
  MEASURES FIRST(DOWN.price) AS a, UP.price AS b, COUNT(*) AS n
  AFTER MATCH SKIP PAST LAST ROW
  PATTERN (START_ROW DOWN+ UP)
  DEFINE DOWN AS ROUND(CAST(DOWN.price AS DOUBLE) / LAST(price, 1), 2) < 0.98,
    UP AS SQRT(AVG(DOWN.price)) < POWER(UP.price, 0.5) AND CAST(UP.price - START_ROW.price AS STRING) NOT LIKE '-%'
) MR;
