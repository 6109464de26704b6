CREATE TABLE Ticker (symbol STRING, price BIGINT, tax BIGINT, rowtime TIMESTAMP(3),
  WATERMARK FOR rowtime AS rowtime - INTERVAL '1' SECOND) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/ticker.jsonl', 'format' = 'json');
CREATE TABLE out_rows (symbol STRING, s TIMESTAMP(3), e TIMESTAMP(3), n BIGINT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT symbol, s, e, n FROM Ticker MATCH_RECOGNIZE (
  PARTITION BY symbol ORDER BY rowtime
  MEASURES FIRST(UP.rowtime) AS s, D.rowtime AS e, COUNT(UP.price) AS n
  PATTERN (UP+ D)
  DEFINE UP AS LAST(UP.price, 1) IS NULL OR UP.price > LAST(UP.price, 1), D AS D.price < LAST(UP.price)
);
