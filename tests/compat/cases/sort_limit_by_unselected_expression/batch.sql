SELECT id, k FROM t ORDER BY v * k, id LIMIT 4
