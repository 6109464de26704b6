CREATE TABLE src (id INT, p ROW<x INT, s STRING, q ROW<u STRING, v INT>>, r ROW<a STRING, b STRING>) WITH (
  'connector' = 'kafka', 'topic' = '${TOPIC}', 'properties.bootstrap.servers' = '${BOOTSTRAP}',
  'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset',
  'format' = 'json');
CREATE TABLE out_rows (id INT, px INT, pqv INT, rnull BOOLEAN) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT id, p.x, p.q.v, r IS NULL FROM src;
