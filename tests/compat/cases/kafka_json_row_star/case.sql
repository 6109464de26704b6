CREATE TABLE src (id INT, r ROW<a INT, b STRING, c ROW<x INT, y DOUBLE>, d DECIMAL(5,2)>, k STRING) WITH (
  'connector' = 'kafka', 'topic' = '${TOPIC}', 'properties.bootstrap.servers' = '${BOOTSTRAP}',
  'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset',
  'format' = 'json');
CREATE TABLE out_rows WITH ('connector' = 'print') AS SELECT id, r.* FROM src;
