CREATE TABLE s (id INT, items ARRAY<ROW<sku STRING, qty INT>>) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/in.jsonl', 'format' = 'json');
CREATE TABLE out_rows (id INT, sku STRING, qty INT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT id, sku, qty FROM s LEFT JOIN UNNEST(items) AS i(sku, qty) ON TRUE;
