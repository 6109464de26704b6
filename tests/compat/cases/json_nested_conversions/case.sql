CREATE TABLE t (
  id INT,
  r ROW<b BYTES, ts TIMESTAMP(3), d DATE, m DECIMAL(5, 2), ltz TIMESTAMP_LTZ(3)>,
  a ARRAY<TIMESTAMP(3)>,
  ab ARRAY<BYTES>,
  ar ARRAY<ROW<ts TIMESTAMP(3), b BYTES>>
) WITH ('connector' = 'filesystem', 'path' = '${CASE_DIR}/t.jsonl', 'format' = 'json');
CREATE TABLE out_rows (id INT, b STRING, ts STRING, d DATE, m DECIMAL(5, 2), ltz STRING, a1 STRING, a2 STRING,
  ab1 STRING, ab2 STRING, ar_ts STRING, ar_b STRING) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT id, CAST(r.b AS STRING), CAST(r.ts AS STRING), r.d, r.m, CAST(r.ltz AS STRING),
  CAST(a[1] AS STRING), CAST(a[2] AS STRING), CAST(ab[1] AS STRING), CAST(ab[2] AS STRING),
  CAST(ar[1].ts AS STRING), CAST(ar[1].b AS STRING) FROM t;
