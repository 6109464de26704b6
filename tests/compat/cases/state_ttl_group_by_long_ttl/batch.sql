SELECT k, COUNT(*), SUM(v) FROM orders GROUP BY k
