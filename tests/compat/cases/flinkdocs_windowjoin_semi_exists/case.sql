CREATE TABLE LeftTable (row_time TIMESTAMP(3), num INT, id STRING, WATERMARK FOR row_time AS row_time - INTERVAL '1' SECOND) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/left.jsonl', 'format' = 'json');
CREATE TABLE RightTable (row_time TIMESTAMP(3), num INT, id STRING, WATERMARK FOR row_time AS row_time - INTERVAL '1' SECOND) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/right.jsonl', 'format' = 'json');
CREATE TABLE out_rows (num INT, id STRING, window_start TIMESTAMP(3), window_end TIMESTAMP(3)) WITH ('connector' = 'print');
INSERT INTO out_rows
SELECT num, id, window_start, window_end
FROM (
    SELECT * FROM TABLE(TUMBLE(TABLE LeftTable, DESCRIPTOR(row_time), INTERVAL '5' MINUTES))
) L WHERE EXISTS (
  SELECT * FROM (
    SELECT * FROM TABLE(TUMBLE(TABLE RightTable, DESCRIPTOR(row_time), INTERVAL '5' MINUTES))
  ) R WHERE L.num = R.num AND L.window_start = R.window_start AND L.window_end = R.window_end);
