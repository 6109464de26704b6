CREATE TABLE src (s STRING) WITH (
  'connector' = 'kafka', 'topic' = '${TOPIC}', 'properties.bootstrap.servers' = '${BOOTSTRAP}',
  'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset',
  'format' = 'raw');
CREATE TABLE out_rows (t STRING) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT REPLACE(s, '�', '#') FROM src;
