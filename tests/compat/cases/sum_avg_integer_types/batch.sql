SELECT k, SUM(ti), trunc(AVG(ti)), SUM(si), trunc(AVG(si)), SUM(i), trunc(AVG(i)), SUM(bi), trunc(AVG(bi)) FROM n GROUP BY k
