CREATE TABLE src (id INT, b BOOLEAN, i INT, x DOUBLE, d DATE) WITH (
  'connector' = 'kafka', 'topic' = '${TOPIC}', 'properties.bootstrap.servers' = '${BOOTSTRAP}',
  'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset',
  'format' = 'csv', 'csv.ignore-parse-errors' = 'true');
CREATE TABLE out_rows (id INT, b BOOLEAN, i INT, x DOUBLE, d STRING) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT id, b, i, x, CAST(d AS STRING) FROM src;
