SELECT k, SUM(i), trunc(AVG(i)), SUM(si), trunc(AVG(si)) FROM cn GROUP BY k
