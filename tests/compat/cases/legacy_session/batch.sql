-- sessions as gaps and islands; timestamps as Flink prints them
WITH b AS (SELECT *, CASE WHEN epoch_ms(ts) - lag(epoch_ms(ts)) OVER (PARTITION BY k ORDER BY ts) <= 3000 THEN 0 ELSE 1 END AS brk FROM ev),
     s AS (SELECT *, sum(brk) OVER (PARTITION BY k ORDER BY ts ROWS UNBOUNDED PRECEDING) AS sid FROM b)
SELECT k, regexp_replace(strftime(min(ts), '%Y-%m-%dT%H:%M:%S.%g'), '(:00)?\.000$', ''), regexp_replace(strftime(max(ts) + INTERVAL 3 SECOND, '%Y-%m-%dT%H:%M:%S.%g'), '(:00)?\.000$', ''), regexp_replace(strftime(max(ts) + INTERVAL 2999 MILLISECOND, '%Y-%m-%dT%H:%M:%S.%g'), '(:00)?\.000$', ''), COUNT(*), SUM(v) FROM s GROUP BY k, sid
