CREATE TABLE src (id INT, a ARRAY<INT>, r ROW<x INT, y INT>, m MAP<STRING, INT>) WITH (
  'connector' = 'kafka', 'topic' = '${TOPIC}', 'properties.bootstrap.servers' = '${BOOTSTRAP}',
  'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset',
  'format' = 'json', 'json.ignore-parse-errors' = 'true');
CREATE TABLE out_rows (id INT, n INT, a1 INT, a2 INT, a3 INT, a4 INT, x INT, y INT, mk INT, mj INT, m1 INT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT id, CARDINALITY(a), a[1], a[2], a[3], a[4], r.x, r.y, m['k'], m['j'], m['1'] FROM src;
