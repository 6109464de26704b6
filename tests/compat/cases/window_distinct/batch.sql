SELECT DISTINCT COUNT(*) FROM w GROUP BY k, time_bucket(INTERVAL '10 seconds', ts)
