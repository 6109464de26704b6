CREATE TABLE src (id INT, ts TIMESTAMP(3), ltz TIMESTAMP_LTZ(3), ts6 TIMESTAMP(6)) WITH (
  'connector' = 'kafka', 'topic' = '${TOPIC}', 'properties.bootstrap.servers' = '${BOOTSTRAP}',
  'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset',
  'format' = 'json', 'json.timestamp-format.standard' = 'ISO-8601', 'json.ignore-parse-errors' = 'true');
CREATE TABLE out_rows (id INT, ts STRING, ltz STRING, ts6 STRING) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT id, CAST(ts AS STRING), CAST(ltz AS STRING), CAST(ts6 AS STRING) FROM src;
