SELECT p.city, COUNT(*), SUM(p.v) FROM c GROUP BY p.city
