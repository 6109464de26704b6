-- StreamSQL quickstart: no Kafka needed. A bounded datagen source of 20,000 orders, a
-- continuously updated aggregation, and the print sink showing its changelog (+I/-U/+U rows).
-- Run: streamsql run examples/quickstart.sql
CREATE TABLE orders (
  order_id BIGINT,
  customer INT,
  amount DOUBLE
) WITH (
  'connector' = 'datagen',
  'number-of-rows' = '20000',
  'rows-per-second' = '20000',
  'fields.order_id.kind' = 'sequence',
  'fields.order_id.start' = '1',
  'fields.order_id.end' = '20000',
  'fields.customer.min' = '1',
  'fields.customer.max' = '5',
  'fields.amount.min' = '1',
  'fields.amount.max' = '100'
);

CREATE TABLE customer_totals (
  customer INT,
  orders BIGINT,
  revenue DOUBLE,
  biggest DOUBLE
) WITH ('connector' = 'print', 'print-identifier' = 'totals');

INSERT INTO customer_totals
SELECT customer, COUNT(*), ROUND(SUM(amount), 2), MAX(amount)
FROM orders
GROUP BY customer;
