CREATE TABLE Ticker (symbol STRING, price BIGINT, tax BIGINT, rowtime TIMESTAMP(3),
  WATERMARK FOR rowtime AS rowtime - INTERVAL '1' SECOND) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/ticker.jsonl', 'format' = 'json');
CREATE TABLE out_rows (first_sym STRING, p0 BIGINT, p1 BIGINT, d BIGINT, lastup BIGINT, n BIGINT, lx BIGINT, t TIMESTAMP(3)) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT * FROM Ticker MATCH_RECOGNIZE (
  ORDER BY rowtime, tax DESC
  MEASURES FIRST(symbol) AS first_sym, FIRST(UP.price, 0) AS p0, FIRST(UP.price, 1) AS p1,
    LAST(UP.price, 1) - DOWN.price AS d, LAST(UP.price) AS lastup, COUNT(UP.price) AS n,
    LAST(UP.price * UP.tax + 1, 1) AS lx, MATCH_ROWTIME() AS t
  ONE ROW PER MATCH
  AFTER MATCH SKIP PAST LAST ROW
  PATTERN (UP{2,} DOWN)
  DEFINE UP AS LAST(price, 1) IS NULL OR UP.price > LAST(price, 1), DOWN AS DOWN.price < LAST(UP.price)
) AS T;
