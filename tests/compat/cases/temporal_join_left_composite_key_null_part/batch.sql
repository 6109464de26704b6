SELECT o.id, o.cur, o.region, r.rate FROM orders AS o ASOF LEFT JOIN rates AS r ON o.cur IS NOT DISTINCT FROM r.cur AND o.region IS NOT DISTINCT FROM r.region AND o.ts >= r.ts
