CREATE TABLE a (id INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/a.jsonl', 'format' = 'json');
CREATE TABLE snk (id INT, ta TIMESTAMP(3), tb TIMESTAMP(3)) WITH ('connector' = 'print');
INSERT INTO snk SELECT id, ts, ts FROM a;
