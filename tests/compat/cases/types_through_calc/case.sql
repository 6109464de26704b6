CREATE TABLE t (id INT, t0 TIMESTAMP(0), ts TIMESTAMP(6), s STRING, c0 AS CAST(ts AS TIMESTAMP(0))) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/t.jsonl', 'format' = 'json');
CREATE TABLE out_rows (id INT, t0 TIMESTAMP(0), t0_text STRING, t1_text STRING, t4_text STRING, c0_text STRING,
  v_text STRING, ch_text STRING, t2_text STRING) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT id, t0, CAST(t0 AS STRING), CAST(t1 AS STRING), CAST(t4 AS STRING), CAST(c0 AS STRING),
  CONCAT('[', v, ']'), CONCAT('[', ch, ']'), CAST(t2 AS STRING)
FROM (SELECT id, t0, c0, CAST(ts AS TIMESTAMP(1)) AS t1, CAST(ts AS TIMESTAMP(4)) AS t4, CAST(s AS VARCHAR(5)) AS v,
  CAST(s AS CHAR(4)) AS ch, CAST(ts AS TIMESTAMP(2)) AS t2 FROM t WHERE id > 0);
