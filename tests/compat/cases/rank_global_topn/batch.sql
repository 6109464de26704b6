SELECT * FROM (SELECT id, amount, ROW_NUMBER() OVER (ORDER BY amount DESC NULLS LAST, id) AS rn FROM orders) WHERE rn <= 3
