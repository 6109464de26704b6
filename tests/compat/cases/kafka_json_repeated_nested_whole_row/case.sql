CREATE TABLE src (id INT, r ROW<x INT, y INT>) WITH (
  'connector' = 'kafka', 'topic' = '${TOPIC}', 'properties.bootstrap.servers' = '${BOOTSTRAP}',
  'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset',
  'format' = 'json');
CREATE TABLE out_rows (id INT, r ROW<x INT, y INT>) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT id, r FROM src;
