CREATE TABLE ev (id INT, k STRING, v BIGINT, p INT) WITH (
  'connector' = 'filesystem', 'path' = '${CASE_DIR}/ev.jsonl', 'format' = 'json');
CREATE TABLE agg_out (k STRING, n BIGINT) WITH ('connector' = 'print');
EXECUTE STATEMENT SET BEGIN
INSERT INTO agg_out SELECT k, COUNT(*) FROM ev GROUP BY k;
CREATE TABLE more_out WITH ('connector' = 'print') AS SELECT k, v FROM ev;
END;
