SELECT id, k, amount, regexp_replace(regexp_replace(strftime(ts, '%Y-%m-%dT%H:%M:%S.%g'), '\.000$', ''), ':00$', ''), 1 FROM orders QUALIFY ROW_NUMBER() OVER (PARTITION BY k ORDER BY ts, id) = 1
