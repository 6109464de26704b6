CREATE TABLE src (id INT, m MAP<STRING, STRING>, a ARRAY<STRING>) WITH (
  'connector' = 'kafka', 'topic' = '${TOPIC}', 'properties.bootstrap.servers' = '${BOOTSTRAP}',
  'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset',
  'format' = 'json', 'json.ignore-parse-errors' = 'true');
CREATE TABLE out_rows (id INT, m STRING, a STRING) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT id, CAST(m AS STRING), CAST(a AS STRING) FROM src;
