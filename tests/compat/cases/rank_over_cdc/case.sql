CREATE TABLE products (id INT, cat STRING, price INT, PRIMARY KEY (id) NOT ENFORCED) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/products.jsonl', 'format' = 'debezium-json');
CREATE TABLE out_rows (cat STRING, id INT, price INT, rn BIGINT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT * FROM (
  SELECT cat, id, price, ROW_NUMBER() OVER (PARTITION BY cat ORDER BY price DESC) AS rn FROM products)
WHERE rn <= 2;
