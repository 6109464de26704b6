CREATE TABLE MyTable (id INT, log_ts STRING) WITH ('connector' = 'filesystem', 'path' = '${CASE_DIR}/t.jsonl', 'format' = 'json');
ALTER TABLE MyTable ADD (ts AS TO_TIMESTAMP(log_ts) AFTER log_ts, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND);
CREATE TABLE out_rows (window_start TIMESTAMP(3), c BIGINT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE MyTable, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY window_start, window_end;
