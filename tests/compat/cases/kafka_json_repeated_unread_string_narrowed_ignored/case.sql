CREATE TABLE src (id INT, r ROW<a INT, b STRING, c INT>) WITH (
  'connector' = 'kafka', 'topic' = '${TOPIC}', 'properties.bootstrap.servers' = '${BOOTSTRAP}',
  'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset',
  'format' = 'json', 'json.ignore-parse-errors' = 'true');
CREATE TABLE out_rows WITH ('connector' = 'print') AS SELECT id, r.a AS a, r.c AS c FROM src;
