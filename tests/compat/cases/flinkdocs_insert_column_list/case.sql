CREATE TABLE page_view_source (`user` STRING, cnt BIGINT, country STRING) WITH ('connector' = 'filesystem', 'path' = '${CASE_DIR}/pv.jsonl', 'format' = 'json');
CREATE TABLE country_page_view (`user` STRING, cnt BIGINT, country STRING) WITH ('connector' = 'print');
INSERT INTO country_page_view (`user`, cnt)
  SELECT `user`, cnt FROM page_view_source;
