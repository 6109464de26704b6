-- timestamps as Flink prints them (LocalDateTime.toString)
SELECT k, regexp_replace(strftime(epoch_ms(epoch_ms(ts) // 5000 * 5000 - i * 5000), '%Y-%m-%dT%H:%M:%S.%g'), '(:00)?\.000$', ''), regexp_replace(strftime(epoch_ms(epoch_ms(ts) // 5000 * 5000 - i * 5000 + 10000), '%Y-%m-%dT%H:%M:%S.%g'), '(:00)?\.000$', ''), COUNT(*), SUM(v) FROM ev, range(0, 2) r(i) GROUP BY ALL
