-- The first flight of each tail number per day: deduplication keeping the row with the smallest
-- scheduled departure per (tailnum, day), emitted once the watermark passes it (insert-only).
-- Load the data first: python examples/flights/replay.py --month 1 --topic flights_jan --output-topic ''
-- Another broker than 127.0.0.1:9092 ($STREAMSQL_KAFKA_BOOTSTRAP; SQL has no variables):
--   sed "s/127.0.0.1:9092/$STREAMSQL_KAFKA_BOOTSTRAP/" examples/flights/first_flights.sql > /tmp/first_flights.sql
SET 'pipeline.name' = 'first-flights';

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

CREATE TABLE first_flights (
  tailnum STRING, `year` INT, `month` INT, `day` INT,
  sched_dep TIMESTAMP(3), carrier STRING, flight INT, origin STRING, dest STRING
) WITH (
  'connector' = 'kafka',
  'topic' = 'first_flights',
  'properties.bootstrap.servers' = '127.0.0.1:9092',
  'format' = 'json',
  'sink.delivery-guarantee' = 'exactly-once',
  'sink.topic.auto-create' = 'true'
);

INSERT INTO first_flights
SELECT tailnum, `year`, `month`, `day`, sched_dep, carrier, flight, origin, dest
FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY tailnum, `year`, `month`, `day` ORDER BY sched_dep ASC) AS rn
  FROM flights
  WHERE tailnum IS NOT NULL)
WHERE rn = 1;
