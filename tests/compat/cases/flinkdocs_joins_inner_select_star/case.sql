CREATE TABLE Orders (order_id INT, product_id INT, amount INT) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/orders.jsonl', 'format' = 'json');
CREATE TABLE Product (id INT, name STRING) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/product.jsonl', 'format' = 'json');
CREATE TABLE out_rows (order_id INT, product_id INT, amount INT, id INT, name STRING) WITH ('connector' = 'print');
INSERT INTO out_rows
SELECT *
FROM Orders
INNER JOIN Product
ON Orders.product_id = Product.id;
