CREATE TABLE src (id INT, ltz TIMESTAMP_LTZ(3)) WITH (
  'connector' = 'kafka', 'topic' = '${TOPIC}', 'properties.bootstrap.servers' = '${BOOTSTRAP}',
  'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset',
  'format' = 'json');
CREATE TABLE out_rows (id INT, ltz TIMESTAMP_LTZ(3)) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT id, ltz FROM src;
