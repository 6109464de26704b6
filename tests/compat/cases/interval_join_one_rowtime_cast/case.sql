CREATE TABLE a (id INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/a.jsonl', 'format' = 'json');
CREATE TABLE b (id INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/b.jsonl', 'format' = 'json');
CREATE TABLE snk (id INT, ta TIMESTAMP(3), tb TIMESTAMP(3)) WITH ('connector' = 'print');
INSERT INTO snk SELECT a.id, a.ts, CAST(b.ts AS TIMESTAMP(3)) FROM a JOIN b ON a.id = b.id AND a.ts BETWEEN b.ts - INTERVAL '1' MINUTE AND b.ts;
