SELECT k, SUM(length(s)) FROM n GROUP BY k
