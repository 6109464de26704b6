CREATE TABLE src (id STRING, s STRING) WITH (
  'connector' = 'kafka', 'topic' = '${TOPIC}', 'properties.bootstrap.servers' = '${BOOTSTRAP}',
  'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset',
  'format' = 'csv', 'csv.ignore-parse-errors' = 'true');
CREATE TABLE out_rows WITH ('connector' = 'print') AS SELECT id, s FROM src;
