CREATE TABLE src (id INT, s STRING, t STRING, n DOUBLE) WITH (
  'connector' = 'kafka', 'topic' = '${TOPIC}', 'properties.bootstrap.servers' = '${BOOTSTRAP}',
  'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset',
  'format' = 'json');
CREATE TABLE out_rows (id INT, n DOUBLE) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT id, n FROM src WHERE id > 0;
