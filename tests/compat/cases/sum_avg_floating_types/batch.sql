SELECT k, SUM(f), AVG(f), SUM(d), AVG(d) FROM n GROUP BY k
