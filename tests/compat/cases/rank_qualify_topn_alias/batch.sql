SELECT k, id, amount, ROW_NUMBER() OVER (PARTITION BY k ORDER BY amount DESC, id) AS rn FROM orders WHERE amount > 10 QUALIFY rn <= 2
