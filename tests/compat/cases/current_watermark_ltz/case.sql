CREATE TABLE ev (id INT, ts TIMESTAMP(3), lt AS CAST(ts AS TIMESTAMP_LTZ(3)),
  WATERMARK FOR lt AS lt - INTERVAL '1' SECOND) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/ev.jsonl', 'format' = 'json');
CREATE TABLE out_rows (id INT, wm TIMESTAMP_LTZ(3), s STRING) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT id, CURRENT_WATERMARK(lt), CAST(CURRENT_WATERMARK(lt) AS STRING) FROM ev WHERE id > 1;
