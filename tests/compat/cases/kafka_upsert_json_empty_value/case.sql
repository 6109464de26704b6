CREATE TABLE src (id INT, v INT, PRIMARY KEY (id) NOT ENFORCED) WITH (
  'connector' = 'upsert-kafka', 'topic' = '${TOPIC}', 'properties.bootstrap.servers' = '${BOOTSTRAP}',
  'scan.bounded.mode' = 'latest-offset', 'key.format' = 'json', 'value.format' = 'json');
CREATE TABLE out_rows (id INT, v INT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT id, v FROM src;
