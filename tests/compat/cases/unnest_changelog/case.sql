CREATE TABLE c (id INT, tags ARRAY<STRING>, PRIMARY KEY (id) NOT ENFORCED) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/c.jsonl', 'format' = 'debezium-json');
CREATE TABLE out_rows (tag STRING, n BIGINT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT tag, COUNT(*) FROM c CROSS JOIN UNNEST(tags) AS t(tag) GROUP BY tag;
