SELECT id, v FROM orders WHERE v > (SELECT AVG(v) FROM orders)
