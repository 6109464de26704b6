CREATE TABLE t (
  id INT,
  r ROW<b BYTES, m DECIMAL(5, 2)>,
  ab ARRAY<BYTES>,
  ar ARRAY<ROW<b BYTES, n INT>>
) WITH ('connector' = 'filesystem', 'path' = '${CASE_DIR}/t.jsonl', 'format' = 'json');
CREATE TABLE out_rows (id INT, b STRING, m DECIMAL(5, 2), ab1 STRING, ab2 STRING, ar_b STRING, ar_n INT)
  WITH ('connector' = 'print');
INSERT INTO out_rows SELECT id, CAST(r.b AS STRING), r.m, CAST(ab[1] AS STRING), CAST(ab[2] AS STRING),
  CAST(ar[1].b AS STRING), ar[1].n FROM t;
