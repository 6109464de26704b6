CREATE TABLE src (id INT) WITH (
  'connector' = 'kafka', 'topic' = '${TOPIC}', 'properties.bootstrap.servers' = '${BOOTSTRAP}',
  'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset', 'format' = 'json');
CREATE TABLE snk (id INT, m MAP<INT, STRING>) WITH ('connector' = 'kafka', 'topic' = '${TOPIC}', 'properties.bootstrap.servers' = '${BOOTSTRAP}', 'format' = 'json');
INSERT INTO snk SELECT id, MAP[id, 'a'] FROM src;
