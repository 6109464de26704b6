CREATE TABLE src (id INT, d DECIMAL(10,2), e DECIMAL(38,0)) WITH (
  'connector' = 'kafka', 'topic' = '${TOPIC}', 'properties.bootstrap.servers' = '${BOOTSTRAP}',
  'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset',
  'format' = 'json');
CREATE TABLE out_rows WITH ('connector' = 'print') AS SELECT id, d, e FROM src;
