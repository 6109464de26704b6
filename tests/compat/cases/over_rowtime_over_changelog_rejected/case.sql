CREATE TABLE ev (id INT, k STRING, v BIGINT, ts TIMESTAMP(3), PRIMARY KEY (id) NOT ENFORCED,
  WATERMARK FOR ts AS ts) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/ev.jsonl', 'format' = 'debezium-json');
CREATE TABLE out_rows (id INT, k STRING, s BIGINT) WITH ('connector' = 'print');
INSERT INTO out_rows
SELECT id, k, SUM(v) OVER (PARTITION BY k ORDER BY ts) FROM ev;
