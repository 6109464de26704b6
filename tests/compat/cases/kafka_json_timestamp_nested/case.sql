CREATE TABLE src (id INT, r ROW<t TIMESTAMP(3)>, a ARRAY<TIMESTAMP(3)>) WITH (
  'connector' = 'kafka', 'topic' = '${TOPIC}', 'properties.bootstrap.servers' = '${BOOTSTRAP}',
  'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset',
  'format' = 'json', 'json.ignore-parse-errors' = 'true');
CREATE TABLE out_rows (id INT, rt STRING, a1 STRING, a2 STRING) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT id, CAST(r.t AS STRING), CAST(a[1] AS STRING), CAST(a[2] AS STRING) FROM src;
