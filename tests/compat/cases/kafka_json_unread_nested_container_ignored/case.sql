CREATE TABLE src (id INT, p ROW<x INT, s STRING>, w INT) WITH (
  'connector' = 'kafka', 'topic' = '${TOPIC}', 'properties.bootstrap.servers' = '${BOOTSTRAP}',
  'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset',
  'format' = 'json', 'json.ignore-parse-errors' = 'true');
CREATE TABLE out_rows (id INT, ps STRING, w INT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT id, p.s, w FROM src;
