CREATE TABLE t (id INT,
  fp STRING METADATA FROM 'file.path' VIRTUAL,
  fs BIGINT METADATA FROM 'file.size' VIRTUAL,
  ft TIMESTAMP_LTZ(3) METADATA FROM 'file.modification-time' VIRTUAL,
  fn VARCHAR(200) METADATA FROM 'file.name' VIRTUAL
) WITH ('connector' = 'filesystem', 'path' = '${CASE_DIR}/t.jsonl', 'format' = 'json');
CREATE TABLE out_rows (id INT, a STRING, b STRING, c STRING, d STRING, e STRING) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT id, TYPEOF(fp), TYPEOF(fs), TYPEOF(ft), TYPEOF(fn), TYPEOF(fs + 1) FROM t;
