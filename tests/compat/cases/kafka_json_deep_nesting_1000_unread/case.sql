CREATE TABLE src (id INT, s STRING) WITH (
  'connector' = 'kafka', 'topic' = '${TOPIC}', 'properties.bootstrap.servers' = '${BOOTSTRAP}',
  'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset',
  'format' = 'json');
CREATE TABLE out_rows (id INT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT id FROM src;
