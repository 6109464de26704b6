-- timestamps as Flink prints them (LocalDateTime.toString)
SELECT k, regexp_replace(strftime(epoch_ms(epoch_ms(ts) // 20000 * 20000), '%Y-%m-%dT%H:%M:%S.%g'), '(:00)?\.000$', ''), regexp_replace(strftime(epoch_ms(epoch_ms(ts) // 20000 * 20000 + 20000), '%Y-%m-%dT%H:%M:%S.%g'), '(:00)?\.000$', ''), SUM(v), COUNT(DISTINCT epoch_ms(ts) // 5000) FROM ev GROUP BY ALL
