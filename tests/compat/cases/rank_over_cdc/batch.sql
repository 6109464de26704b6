SELECT * FROM (SELECT cat, id, price, ROW_NUMBER() OVER (PARTITION BY cat ORDER BY price DESC, id) AS rn FROM products) WHERE rn <= 2
