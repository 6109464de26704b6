CREATE TABLE page_view_source (`user` STRING, cnt BIGINT) WITH ('connector' = 'filesystem', 'path' = '${CASE_DIR}/t.jsonl', 'format' = 'json');
CREATE TABLE out_rows (`user` STRING, cnt BIGINT, `date` STRING, country STRING) WITH ('connector' = 'print');
INSERT INTO out_rows PARTITION (`date`='2019-8-30', country='China')
  SELECT `user`, cnt FROM page_view_source;
