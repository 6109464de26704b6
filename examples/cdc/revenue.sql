-- Orders in MariaDB, read through their binlog (mysql-cdc), as revenue per customer in an
-- upsert-kafka topic and in a PostgreSQL table, exactly-once. See README's walkthrough.
SET 'pipeline.name' = 'cdc-revenue';
SET 'execution.checkpointing.interval' = '1 s';

CREATE TABLE orders (
  order_id INT, customer INT, amount DECIMAL(10, 2), placed TIMESTAMP(6),
  PRIMARY KEY (order_id) NOT ENFORCED
) WITH (
  'connector' = 'mysql-cdc', 'hostname' = '127.0.0.1', 'port' = '3306',
  'username' = 'streamsql', 'password' = 'streamsql-test-password',
  'database-name' = 'shop', 'table-name' = 'orders', 'server-id' = '5501'
);

CREATE TABLE revenue_kafka (
  customer INT, orders BIGINT, revenue DECIMAL(38, 2), last_placed TIMESTAMP(6),
  PRIMARY KEY (customer) NOT ENFORCED
) WITH (
  'connector' = 'upsert-kafka', 'topic' = 'customer-revenue',
  'properties.bootstrap.servers' = '127.0.0.1:9092', 'key.format' = 'json', 'value.format' = 'json'
);

CREATE TABLE revenue_pg (
  customer INT, orders BIGINT, revenue DECIMAL(38, 2), last_placed TIMESTAMP(6),
  PRIMARY KEY (customer) NOT ENFORCED
) WITH (
  'connector' = 'jdbc', 'url' = 'jdbc:postgresql://127.0.0.1:5432/shop', 'table-name' = 'revenue',
  'username' = 'streamsql', 'password' = 'streamsql-test-password'
);

CREATE TEMPORARY VIEW revenue AS
  SELECT customer, COUNT(*), SUM(amount), MAX(placed) FROM orders GROUP BY customer;

EXECUTE STATEMENT SET BEGIN
INSERT INTO revenue_kafka SELECT * FROM revenue;
INSERT INTO revenue_pg SELECT * FROM revenue;
END;
