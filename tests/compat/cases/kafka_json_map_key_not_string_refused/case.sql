CREATE TABLE src (id INT, mi MAP<INT, STRING>, md MAP<DATE, INT>, mt MAP<TIMESTAMP(3), INT>, mb MAP<BOOLEAN, INT>, mdec MAP<DECIMAL(5,1), INT>) WITH (
  'connector' = 'kafka', 'topic' = '${TOPIC}', 'properties.bootstrap.servers' = '${BOOTSTRAP}',
  'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset',
  'format' = 'json');
CREATE TABLE out_rows WITH ('connector' = 'print') AS SELECT * FROM src;
