-- timestamps as Flink prints them (LocalDateTime.toString)
SELECT k, regexp_replace(strftime(epoch_ms(epoch_ms(ts) // 10000 * 10000), '%Y-%m-%dT%H:%M:%S.%g'), '(:00)?\.000$', ''), MAX(s), COUNT(*) FROM (SELECT k, ts, SUM(v) OVER (PARTITION BY k ORDER BY ts, id ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS s FROM ev) GROUP BY ALL
