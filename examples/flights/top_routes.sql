-- The three most delayed routes of each day: a daily TUMBLE window aggregate per route (origin,
-- dest) ranked by its average departure delay; each day's three rows come out once, when the
-- watermark passes the day's end (window Top-N, insert-only).
-- Load the data first: python examples/flights/replay.py --month 1 --topic flights_jan --output-topic ''
-- Another broker than 127.0.0.1:9092 ($STREAMSQL_KAFKA_BOOTSTRAP; SQL has no variables):
--   sed "s/127.0.0.1:9092/$STREAMSQL_KAFKA_BOOTSTRAP/" examples/flights/top_routes.sql > /tmp/top_routes.sql
SET 'pipeline.name' = 'top-routes';

CREATE TABLE flights (
  `year` INT, `month` INT, `day` INT,
  dep_time DOUBLE, sched_dep_time INT, dep_delay DOUBLE, arr_delay DOUBLE,
  carrier STRING, flight INT, tailnum STRING, origin STRING, dest STRING,
  air_time DOUBLE, distance INT,
  sched_dep TIMESTAMP(3),
  WATERMARK FOR sched_dep AS sched_dep - INTERVAL '1' HOUR
) WITH (
  'connector' = 'kafka',
  'topic' = 'flights_jan',
  'properties.bootstrap.servers' = '127.0.0.1:9092',
  'format' = 'json',
  'scan.startup.mode' = 'earliest-offset',
  'scan.bounded.mode' = 'latest-offset'
);

CREATE TABLE top_routes (
  day_start TIMESTAMP(3), origin STRING, dest STRING,
  flights BIGINT, avg_dep_delay DOUBLE, rn BIGINT
) WITH (
  'connector' = 'kafka',
  'topic' = 'top_routes',
  'properties.bootstrap.servers' = '127.0.0.1:9092',
  'format' = 'json',
  'sink.delivery-guarantee' = 'exactly-once',
  'sink.topic.auto-create' = 'true'
);

INSERT INTO top_routes
SELECT window_start, origin, dest, flights, avg_dep_delay, rn
FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY avg_dep_delay DESC) AS rn
  FROM (
    SELECT window_start, window_end, origin, dest, COUNT(*) AS flights, AVG(dep_delay) AS avg_dep_delay
    FROM TABLE(TUMBLE(TABLE flights, DESCRIPTOR(sched_dep), INTERVAL '1' DAY))
    WHERE dep_delay IS NOT NULL
    GROUP BY window_start, window_end, origin, dest))
WHERE rn <= 3;
