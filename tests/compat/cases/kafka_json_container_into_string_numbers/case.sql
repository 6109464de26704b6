CREATE TABLE src (id INT, s STRING, r ROW<s STRING>) WITH (
  'connector' = 'kafka', 'topic' = '${TOPIC}', 'properties.bootstrap.servers' = '${BOOTSTRAP}',
  'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset',
  'format' = 'json');
CREATE TABLE out_rows WITH ('connector' = 'print') AS SELECT id, s, r FROM src;
