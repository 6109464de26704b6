CREATE TABLE src (id INT, v DOUBLE) WITH (
  'connector' = 'kafka', 'topic' = '${TOPIC}', 'properties.bootstrap.servers' = '${BOOTSTRAP}',
  'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset',
  'format' = 'csv');
CREATE TABLE out_rows (id INT, v DOUBLE) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT id, v FROM src;
