CREATE TABLE ShopSales (
  product_id   STRING,
  category     STRING,
  product_name STRING,
  sales        BIGINT
) WITH ('connector' = 'filesystem', 'path' = '${CASE_DIR}/sales.jsonl', 'format' = 'json');
CREATE TABLE out_rows (product_id STRING, category STRING, product_name STRING, sales BIGINT, row_num BIGINT) WITH ('connector' = 'print');
INSERT INTO out_rows
SELECT product_id, category, product_name, sales, row_num
FROM (
  SELECT *,
    ROW_NUMBER() OVER (PARTITION BY category ORDER BY sales DESC) AS row_num
  FROM ShopSales)
WHERE row_num <= 5;
