CREATE TABLE src (id INT, m DECIMAL(7, 2)) WITH (
  'connector' = 'kafka', 'topic' = '${TOPIC}', 'properties.bootstrap.servers' = '${BOOTSTRAP}',
  'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset',
  'format' = 'csv', 'csv.ignore-parse-errors' = 'true');
CREATE TABLE out_rows (id INT, m DECIMAL(7, 2)) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT * FROM src;
