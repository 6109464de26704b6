CREATE TABLE src (id INT, s STRING, t STRING, u STRING, v STRING) WITH (
  'connector' = 'kafka', 'topic' = '${TOPIC}', 'properties.bootstrap.servers' = '${BOOTSTRAP}',
  'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset',
  'format' = 'debezium-json');
CREATE TABLE out_rows WITH ('connector' = 'print') AS SELECT id, s, t, u, v FROM src;
