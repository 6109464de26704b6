CREATE TABLE src (id INT, ts TIMESTAMP(3)) WITH (
  'connector' = 'kafka', 'topic' = '${TOPIC}', 'properties.bootstrap.servers' = '${BOOTSTRAP}',
  'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset',
  'format' = 'json');
CREATE TABLE out_rows (id INT, ts TIMESTAMP(3)) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT id, ts FROM src;
