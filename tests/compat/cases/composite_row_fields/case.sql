CREATE TABLE s (id INT, p ROW<x INT, s STRING, ts TIMESTAMP(3)>, ra ARRAY<ROW<x INT, s STRING>>) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/in.jsonl', 'format' = 'json');
CREATE TABLE out_rows (id INT, px INT, ps STRING, pb STRING, peek INT, p ROW<x INT, s STRING, ts TIMESTAMP(3)>, ra ARRAY<ROW<x INT, s STRING>>, r1 INT, r2 STRING, ts TIMESTAMP(3)) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT id, p.x, s.p.s, p['s'], x + 1, p, ra, ra[1].x, ra[2]['s'], p.ts FROM s WHERE p.x IS NULL OR p.x < 7 OR id = 4;
