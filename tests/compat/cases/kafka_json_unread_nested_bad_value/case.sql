CREATE TABLE src (id INT, p ROW<x INT, s STRING, t STRING>) WITH (
  'connector' = 'kafka', 'topic' = '${TOPIC}', 'properties.bootstrap.servers' = '${BOOTSTRAP}',
  'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset',
  'format' = 'json');
CREATE TABLE out_rows (id INT, ps STRING) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT id, p.s FROM src;
