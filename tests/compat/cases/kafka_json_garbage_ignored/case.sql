CREATE TABLE src (id INT, v INT, b BIGINT, d DECIMAL(5, 2), p ROW<x INT>, s STRING) WITH (
  'connector' = 'kafka', 'topic' = '${TOPIC}', 'properties.bootstrap.servers' = '${BOOTSTRAP}',
  'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset',
  'format' = 'json', 'json.ignore-parse-errors' = 'true');
CREATE TABLE out_rows (id INT, v INT, b BIGINT, d DECIMAL(5, 2), px INT, s STRING) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT id, v, b, d, p.x, s FROM src;
