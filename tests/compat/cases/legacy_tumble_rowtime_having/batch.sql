-- timestamps as Flink prints them (LocalDateTime.toString)
SELECT regexp_replace(strftime(rt, '%Y-%m-%dT%H:%M:%S.%g'), '(:00)?\.000$', ''), n, s FROM (SELECT epoch_ms(epoch_ms(ts) // 10000 * 10000 + 9999) AS rt, COUNT(*) AS n, SUM(v) AS s FROM ev GROUP BY 1) WHERE n > 2 AND rt + INTERVAL 1 MILLISECOND > TIMESTAMP '2024-05-01 00:00:10'
