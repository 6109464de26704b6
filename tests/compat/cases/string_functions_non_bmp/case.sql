CREATE TABLE t (id INT, s STRING, p STRING) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/t.jsonl', 'format' = 'json');
CREATE TABLE out_rows (id INT, n INT, lp6 STRING, rp6 STRING, lp2 STRING, rp2 STRING, lpp STRING,
  l2 STRING, r2 STRING, sub21 STRING, sub3 STRING, loc INT, pos INT, ins INT, ov STRING,
  rev STRING, ini STRING, rx STRING, spl STRING, tr STRING, bt STRING, asc_s INT, loc3 INT,
  ovn STRING, sub_len INT, c3 STRING, v2 STRING, rr STRING) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT id, CHAR_LENGTH(s), LPAD(s, 6, '*'), RPAD(s, 6, '*'), LPAD(s, 2, '*'), RPAD(s, 2, '*'),
  LPAD('ab', 5, p), LEFT(s, 2), RIGHT(s, 2), SUBSTRING(s, 2, 1), SUBSTRING(s, 3), LOCATE('b', s),
  POSITION('x' IN s), INSTR(s, 'c'), OVERLAY(s PLACING 'X' FROM 3 FOR 1), REVERSE(s), INITCAP(s),
  REGEXP_EXTRACT(s, '^.(.)', 1), SPLIT_INDEX(s, 'b', 0), TRANSLATE(s, 'bx', 'BX'), BTRIM(s, p),
  ASCII(s), LOCATE('c', s, 3), OVERLAY(s PLACING p FROM 2), CHAR_LENGTH(SUBSTRING(s FROM 2 FOR 2)),
  CAST(s AS CHAR(3)), CAST(s AS VARCHAR(2)), REGEXP_REPLACE(s, '.', '.')
FROM t;
