CREATE TABLE src (id INT, v INT, b BOOLEAN, s STRING, dt DATE) WITH (
  'connector' = 'kafka', 'topic' = '${TOPIC}', 'properties.bootstrap.servers' = '${BOOTSTRAP}',
  'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset',
  'format' = 'csv', 'csv.null-literal' = '');
CREATE TABLE out_rows (id INT, v INT, b BOOLEAN, s STRING, dt DATE) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT id, v, b, s, dt FROM src;
