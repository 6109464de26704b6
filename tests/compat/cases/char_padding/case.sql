CREATE TABLE t (id INT, s STRING) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/t.jsonl', 'format' = 'json');
CREATE TABLE out_rows (id INT, c STRING, b STRING, n INT, eq_s BOOLEAN, eq_c3 BOOLEAN, cn INT, lt BOOLEAN) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT id, CAST(s AS CHAR(5)), CONCAT('[', CAST(s AS CHAR(5)), ']'), CHAR_LENGTH(CAST(s AS CHAR(5))),
  CAST(s AS CHAR(5)) = s, CAST(s AS CHAR(5)) = CAST(s AS CHAR(3)), CHAR_LENGTH(CONCAT(CAST(s AS CHAR(4)), 'x')),
  CAST(s AS CHAR(3)) < CAST(s AS CHAR(5)) FROM t;
