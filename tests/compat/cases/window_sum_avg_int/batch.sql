SELECT k, time_bucket(INTERVAL '10 seconds', ts), SUM(v), trunc(AVG(v)), COUNT(*) FROM w GROUP BY k, time_bucket(INTERVAL '10 seconds', ts)
