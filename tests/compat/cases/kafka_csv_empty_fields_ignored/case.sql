CREATE TABLE src (id INT, i INT, d DOUBLE, b BOOLEAN, dt DATE, s STRING, dc DECIMAL(5,2), ts TIMESTAMP(3), ltz TIMESTAMP_LTZ(3), bs BYTES) WITH (
  'connector' = 'kafka', 'topic' = '${TOPIC}', 'properties.bootstrap.servers' = '${BOOTSTRAP}',
  'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset',
  'format' = 'csv', 'csv.ignore-parse-errors' = 'true');
CREATE TABLE out_rows (id INT, i INT, d DOUBLE, b BOOLEAN, dt DATE, s STRING, dc DECIMAL(5,2), ts STRING, ltz STRING, bs STRING) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT id, i, d, b, dt, s, dc, CAST(ts AS STRING), CAST(ltz AS STRING), CAST(bs AS STRING) FROM src;
