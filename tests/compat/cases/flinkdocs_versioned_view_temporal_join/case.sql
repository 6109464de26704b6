CREATE TABLE RatesHistory (
    currency_time TIMESTAMP(3),
    currency STRING,
    rate DECIMAL(38, 10),
    WATERMARK FOR currency_time AS currency_time   -- defines the event time
) WITH ('connector' = 'filesystem', 'path' = '${CASE_DIR}/rates.jsonl', 'format' = 'json');
CREATE TABLE orders (order_id STRING, price INT, currency STRING, order_time TIMESTAMP(3),
  WATERMARK FOR order_time AS order_time) WITH ('connector' = 'filesystem', 'path' = '${CASE_DIR}/orders.jsonl', 'format' = 'json');
CREATE VIEW versioned_rates AS
SELECT currency, rate, currency_time            -- (1) `currency_time` keeps the event time
  FROM (
      SELECT *,
      ROW_NUMBER() OVER (PARTITION BY currency  -- (2) the inferred unique key `currency` can be a primary key
         ORDER BY currency_time DESC) AS rowNum
      FROM RatesHistory)
WHERE rowNum = 1;
CREATE TABLE out_rows (order_id STRING, price INT, currency STRING, rate DECIMAL(38, 10), order_time TIMESTAMP(3)) WITH ('connector' = 'print');
INSERT INTO out_rows
SELECT order_id, price, orders.currency, rate, order_time
FROM orders
LEFT JOIN versioned_rates FOR SYSTEM_TIME AS OF orders.order_time
ON orders.currency = versioned_rates.currency;
