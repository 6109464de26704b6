CREATE TABLE src (k INT, id INT, v INT) WITH (
  'connector' = 'kafka', 'topic' = '${TOPIC}', 'properties.bootstrap.servers' = '${BOOTSTRAP}',
  'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset',
  'key.format' = 'json', 'key.fields' = 'k', 'value.format' = 'json', 'value.fields-include' = 'EXCEPT_KEY');
CREATE TABLE out_rows (k INT, id INT, v INT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT k, id, v FROM src;
