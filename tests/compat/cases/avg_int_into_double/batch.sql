SELECT k, trunc(AVG(i)) FROM n GROUP BY k
