CREATE TABLE n (id INT, k STRING, ti TINYINT, si SMALLINT, i INT, bi BIGINT, f FLOAT, d DOUBLE, m DECIMAL(5, 2), p DECIMAL(10, 8), s STRING, dt DATE, ts TIMESTAMP(3)) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/n.jsonl', 'format' = 'json');
CREATE TABLE out_rows (k STRING, sm DECIMAL(38, 2), am DECIMAL(38, 6), sp DECIMAL(38, 8), ap DECIMAL(38, 8)) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT k, SUM(m), AVG(m), SUM(p), AVG(p) FROM n GROUP BY k;
