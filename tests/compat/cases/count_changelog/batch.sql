SELECT k, COUNT(*), COUNT(v), MIN(v), MAX(v) FROM readings GROUP BY k
