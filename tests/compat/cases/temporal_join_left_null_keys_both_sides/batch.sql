SELECT o.id, o.cur, r.rate FROM orders AS o ASOF LEFT JOIN rates AS r ON o.cur IS NOT DISTINCT FROM r.cur AND o.ts >= r.ts
