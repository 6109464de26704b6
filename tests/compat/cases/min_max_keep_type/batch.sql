SELECT k, MIN(si), MAX(m), MIN(s), MAX(s), MIN(dt), MAX(ts) FROM n GROUP BY k
