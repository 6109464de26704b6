SELECT 'exists', id FROM o WHERE EXISTS (SELECT * FROM r WHERE r.k = o.k AND r.v > o.v) UNION ALL SELECT 'not exists', id FROM o WHERE NOT EXISTS (SELECT 1 FROM r WHERE r.k = o.k AND r.v > o.v)
