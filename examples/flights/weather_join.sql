-- Every flight with its origin's weather as of its scheduled departure: an event-time temporal
-- join against the hourly weather, a versioned table (upsert topic keyed by origin; each
-- observation is the origin's new version from its local hour ts). A flight joins the latest
-- observation at or before its departure, once the watermark of both inputs passes it.
-- Load the data first:
--   python examples/flights/replay.py --month 1 --topic flights_jan --output-topic '' --weather --weather-topic weather_jan
-- Another broker than 127.0.0.1:9092 ($STREAMSQL_KAFKA_BOOTSTRAP; SQL has no variables):
--   sed "s/127.0.0.1:9092/$STREAMSQL_KAFKA_BOOTSTRAP/" examples/flights/weather_join.sql > /tmp/weather_join.sql
SET 'pipeline.name' = 'flight-weather';

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

CREATE TABLE weather (
  origin STRING, `year` INT, `month` INT, `day` INT, `hour` INT,
  temp DOUBLE, dewp DOUBLE, humid DOUBLE, wind_dir DOUBLE, wind_speed DOUBLE, wind_gust DOUBLE,
  precip DOUBLE, pressure DOUBLE, visib DOUBLE,
  ts TIMESTAMP(3),
  PRIMARY KEY (origin) NOT ENFORCED,
  WATERMARK FOR ts AS ts - INTERVAL '1' HOUR
) WITH (
  'connector' = 'upsert-kafka',
  'topic' = 'weather_jan',
  'properties.bootstrap.servers' = '127.0.0.1:9092',
  'key.format' = 'json',
  'value.format' = 'json',
  'scan.bounded.mode' = 'latest-offset'
);

CREATE TABLE flight_weather (
  carrier STRING, flight INT, tailnum STRING, origin STRING, dest STRING, sched_dep TIMESTAMP(3),
  dep_delay DOUBLE, weather_hour TIMESTAMP(3), temp DOUBLE, wind_speed DOUBLE, precip DOUBLE,
  visib DOUBLE
) WITH (
  'connector' = 'kafka',
  'topic' = 'flight_weather',
  'properties.bootstrap.servers' = '127.0.0.1:9092',
  'format' = 'json',
  'sink.delivery-guarantee' = 'exactly-once',
  'sink.topic.auto-create' = 'true'
);

INSERT INTO flight_weather
SELECT f.carrier, f.flight, f.tailnum, f.origin, f.dest, f.sched_dep, f.dep_delay,
       w.ts, w.temp, w.wind_speed, w.precip, w.visib
FROM flights AS f
LEFT JOIN weather FOR SYSTEM_TIME AS OF f.sched_dep AS w ON f.origin = w.origin;
