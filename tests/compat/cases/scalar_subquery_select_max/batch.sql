SELECT id, v, (SELECT MAX(v) FROM orders) AS top FROM orders
