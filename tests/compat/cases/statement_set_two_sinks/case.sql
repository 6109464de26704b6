CREATE TABLE ev (id INT, k STRING, v BIGINT, p INT) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/ev.jsonl', 'format' = 'json');
CREATE TABLE agg_out (k STRING, n BIGINT) WITH ('connector' = 'print');
CREATE TABLE row_out (k STRING, n BIGINT) WITH ('connector' = 'print');
EXECUTE STATEMENT SET BEGIN
INSERT INTO agg_out SELECT k, COUNT(*) FROM ev GROUP BY k;
INSERT INTO row_out SELECT CONCAT(k, '-', CAST(id AS STRING)), v FROM ev WHERE v > 4;
END;
