-- Per origin airport and carrier: number of flights, average and worst departure delay,
-- continuously maintained in an upsert-kafka topic (one record per key, updated in place).
-- Load the data first: python examples/flights/replay.py
-- Another broker than 127.0.0.1:9092 ($STREAMSQL_KAFKA_BOOTSTRAP; SQL has no variables):
--   sed "s/127.0.0.1:9092/$STREAMSQL_KAFKA_BOOTSTRAP/" examples/flights/delays.sql > /tmp/delays.sql
SET 'pipeline.name' = 'flight-delays';

CREATE TABLE flights (
  `year` INT, `month` INT, `day` INT,
  dep_time DOUBLE, sched_dep_time INT, dep_delay DOUBLE, arr_delay DOUBLE,
  carrier STRING, flight INT, tailnum STRING, origin STRING, dest STRING,
  air_time DOUBLE, distance INT,
  sched_dep TIMESTAMP(3),
  WATERMARK FOR sched_dep AS sched_dep - INTERVAL '1' HOUR
) WITH (
  'connector' = 'kafka',
  'topic' = 'flights',
  'properties.bootstrap.servers' = '127.0.0.1:9092',
  'format' = 'json',
  'scan.startup.mode' = 'earliest-offset',
  'scan.bounded.mode' = 'latest-offset'
);

CREATE TABLE delays (
  origin STRING,
  carrier STRING,
  flights BIGINT,
  avg_dep_delay DOUBLE,
  max_dep_delay DOUBLE,
  PRIMARY KEY (origin, carrier) NOT ENFORCED
) WITH (
  'connector' = 'upsert-kafka',
  'topic' = 'flight_delays',
  'properties.bootstrap.servers' = '127.0.0.1:9092',
  'key.format' = 'json',
  'value.format' = 'json'
);

INSERT INTO delays
SELECT origin, carrier, COUNT(*) AS flights, AVG(dep_delay) AS avg_dep_delay, MAX(dep_delay) AS max_dep_delay
FROM flights
GROUP BY origin, carrier;
