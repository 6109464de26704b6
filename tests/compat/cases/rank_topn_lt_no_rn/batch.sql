SELECT k, id, amount FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY amount DESC NULLS FIRST, id) AS rn FROM orders) WHERE rn < 3 AND amount > 20
