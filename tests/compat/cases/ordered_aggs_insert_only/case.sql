CREATE TABLE rows_in (k STRING, s STRING, i INT) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/rows.jsonl', 'format' = 'json');
CREATE TABLE out_rows (k STRING, fs STRING, ls STRING, fi INT, li INT, la STRING, lb STRING) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT k, FIRST_VALUE(s), LAST_VALUE(s), FIRST_VALUE(i), LAST_VALUE(i), LISTAGG(s),
  LISTAGG(s, '; ') FROM rows_in GROUP BY k;
