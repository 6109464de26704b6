CREATE DATABASE IF NOT EXISTS shop;
USE shop;
CREATE TABLE orders (id INT, item STRING, qty INT, ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/orders.jsonl', 'format' = 'json');
CREATE TABLE big_orders WITH ('path' = '${CASE_DIR}/big.jsonl') LIKE orders (EXCLUDING WATERMARKS);
CREATE VIEW totals AS SELECT item, SUM(qty) AS total, COUNT(*) AS n FROM big_orders GROUP BY item;
USE CATALOG default_catalog;
USE default_database;
CREATE TABLE orders (id INT) WITH ('connector' = 'filesystem', 'path' = '${CASE_DIR}/orders.jsonl', 'format' = 'json');
CREATE TABLE out_rows (item STRING, total INT, n BIGINT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT item, total, n FROM default_catalog.shop.totals WHERE item <> 'x';
