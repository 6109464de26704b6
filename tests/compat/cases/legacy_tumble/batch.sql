-- timestamps as Flink prints them (LocalDateTime.toString)
SELECT k, regexp_replace(strftime(epoch_ms(epoch_ms(ts) // 10000 * 10000), '%Y-%m-%dT%H:%M:%S.%g'), '(:00)?\.000$', ''), regexp_replace(strftime(epoch_ms(epoch_ms(ts) // 10000 * 10000 + 10000), '%Y-%m-%dT%H:%M:%S.%g'), '(:00)?\.000$', ''), COUNT(*), COUNT(v), SUM(v), MAX(v) FROM ev GROUP BY ALL
