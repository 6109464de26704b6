CREATE TABLE Ticker (symbol STRING, price BIGINT, tax BIGINT, rowtime TIMESTAMP(3),
  WATERMARK FOR rowtime AS rowtime - INTERVAL '1' SECOND) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/ticker.jsonl', 'format' = 'json');
CREATE TABLE out_rows (symbol STRING, kind STRING, avg_d DOUBLE, drop_abs BIGINT, secs INT, s STRING, ratio BIGINT, scaled DECIMAL(20, 2), n BIGINT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT * FROM Ticker MATCH_RECOGNIZE (
  PARTITION BY symbol ORDER BY rowtime
  MEASURES CASE WHEN LAST(UP.price) > FIRST(DOWN.price) THEN 'higher' ELSE 'lower' END AS kind,
    CAST(AVG(DOWN.price) AS DOUBLE) / 2 AS avg_d, ABS(LAST(DOWN.price) - START_ROW.price) AS drop_abs,
    TIMESTAMPDIFF(SECOND, START_ROW.rowtime, LAST(UP.rowtime)) AS secs,
    UPPER(START_ROW.symbol) || '-' || CAST(COUNT(*) AS STRING) AS s,
    SUM(DOWN.price) / COUNT(DOWN.price) AS ratio, LAST(UP.price) * 1.25 AS scaled, COUNT(DOWN.tax) AS n
  AFTER MATCH SKIP PAST LAST ROW
  PATTERN (START_ROW DOWN+ UP)
  DEFINE DOWN AS DOWN.price < LAST(price, 1), UP AS UP.price > LAST(DOWN.price)
) MR;
