CREATE TABLE src (id INT, a TINYINT, b SMALLINT, c INT, d BIGINT) WITH (
  'connector' = 'kafka', 'topic' = '${TOPIC}', 'properties.bootstrap.servers' = '${BOOTSTRAP}',
  'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset',
  'format' = 'json', 'json.ignore-parse-errors' = 'true');
CREATE TABLE out_rows (id INT, a TINYINT, b SMALLINT, c INT, d BIGINT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT id, a, b, c, d FROM src;
