CREATE TABLE src (id INT, f FLOAT, r ROW<f FLOAT>, a ARRAY<FLOAT>, s FLOAT) WITH (
  'connector' = 'kafka', 'topic' = '${TOPIC}', 'properties.bootstrap.servers' = '${BOOTSTRAP}',
  'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset',
  'format' = 'json', 'json.ignore-parse-errors' = 'true');
CREATE TABLE out_rows WITH ('connector' = 'print') AS SELECT id, f, r, a, s FROM src;
