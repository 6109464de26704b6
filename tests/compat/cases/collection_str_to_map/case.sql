CREATE TABLE src (id INT, s STRING, t STRING) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/in.jsonl', 'format' = 'json');
CREATE TABLE out_rows (id INT, ma STRING, mb STRING, mc STRING, mk STRING, me STRING, n INT, ta STRING, tb STRING,
  tk STRING, tn INT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT id, STR_TO_MAP(s)['a'], STR_TO_MAP(s)['b'], STR_TO_MAP(s)['c'], STR_TO_MAP(s)['k'],
  STR_TO_MAP(s)[''], CARDINALITY(STR_TO_MAP(s)), STR_TO_MAP(t, ';', ':')['a'], STR_TO_MAP(t, ';', ':')['b'],
  STR_TO_MAP(t, ';', ':')['k'], CARDINALITY(STR_TO_MAP(t, ';', ':')) FROM src;
