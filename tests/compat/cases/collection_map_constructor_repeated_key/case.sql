CREATE TABLE src (id INT) WITH (
  'connector' = 'kafka', 'topic' = '${TOPIC}', 'properties.bootstrap.servers' = '${BOOTSTRAP}',
  'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset',
  'format' = 'json');
CREATE TABLE out_rows WITH ('connector' = 'print') AS SELECT id, STR_TO_MAP('a=1,b=2,a=3') AS m1, MAP_UNION(MAP['a', 1], MAP['a', 2, 'b', 3]) AS m2, MAP['k', 1, 'k', 2] AS m3 FROM src;
