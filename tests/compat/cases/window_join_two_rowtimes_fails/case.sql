CREATE TABLE a (id INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/a.jsonl', 'format' = 'json');
CREATE TABLE b (id INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/b.jsonl', 'format' = 'json');
CREATE TABLE snk (id INT, ta TIMESTAMP(3), tb TIMESTAMP(3)) WITH ('connector' = 'print');
INSERT INTO snk SELECT l.id, l.ts, r.ts
FROM (SELECT * FROM TABLE(TUMBLE(TABLE a, DESCRIPTOR(ts), INTERVAL '10' MINUTE))) l
JOIN (SELECT * FROM TABLE(TUMBLE(TABLE b, DESCRIPTOR(ts), INTERVAL '10' MINUTE))) r
ON l.id = r.id AND l.window_start = r.window_start AND l.window_end = r.window_end;
