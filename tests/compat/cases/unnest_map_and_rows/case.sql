CREATE TABLE s (id INT, m MAP<STRING, INT>, items ARRAY<ROW<sku STRING, qty INT>>) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/in.jsonl', 'format' = 'json');
CREATE TABLE out_rows (id INT, k STRING, v INT, sku STRING, qty INT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT id, k, v, sku, qty FROM s, UNNEST(m) AS kv(k, v), UNNEST(items) AS i(sku, qty);
