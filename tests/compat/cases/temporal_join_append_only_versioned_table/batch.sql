SELECT o.id, r.rate FROM orders AS o ASOF JOIN rates AS r ON o.cur = r.cur AND o.ts >= r.ts
