CREATE TABLE src (id INT, s STRING) WITH (
  'connector' = 'kafka', 'topic' = '${TOPIC}', 'properties.bootstrap.servers' = '${BOOTSTRAP}',
  'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset',
  'format' = 'csv', 'csv.allow-comments' = 'true');
CREATE TABLE out_rows WITH ('connector' = 'print') AS SELECT id, s FROM src;
