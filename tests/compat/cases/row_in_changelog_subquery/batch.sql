SELECT 'in', id FROM o WHERE (a, b) IN (SELECT x, y FROM rc)
UNION ALL SELECT 'not in', id FROM o WHERE (a, b) NOT IN (SELECT x, y FROM rc)
UNION ALL SELECT 'not exists', id FROM o WHERE NOT EXISTS (SELECT * FROM rc WHERE rc.x = o.a AND rc.y = o.b)
