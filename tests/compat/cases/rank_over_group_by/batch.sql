SELECT * FROM (SELECT k, total, n, ROW_NUMBER() OVER (ORDER BY total DESC NULLS LAST, n) AS rn FROM (SELECT k, CAST(SUM(amount) AS INT) AS total, COUNT(*) AS n FROM orders GROUP BY k)) WHERE rn <= 2
