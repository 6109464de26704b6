CREATE TABLE src (id INT, a ARRAY<ROW<x INT, y INT>>) WITH (
  'connector' = 'kafka', 'topic' = '${TOPIC}', 'properties.bootstrap.servers' = '${BOOTSTRAP}',
  'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset',
  'format' = 'json', 'json.fail-on-missing-field' = 'true');
CREATE TABLE out_rows WITH ('connector' = 'print') AS SELECT id, a FROM src;
