CREATE TABLE src (id INT, m DECIMAL(7, 2), b BIGINT, t TINYINT, s SMALLINT, x DOUBLE, f FLOAT) WITH (
  'connector' = 'kafka', 'topic' = '${TOPIC}', 'properties.bootstrap.servers' = '${BOOTSTRAP}',
  'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset',
  'format' = 'csv', 'csv.ignore-parse-errors' = 'true');
CREATE TABLE out_rows (id INT, m DECIMAL(7, 2), b BIGINT, t TINYINT, s SMALLINT, x DOUBLE, f FLOAT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT * FROM src;
