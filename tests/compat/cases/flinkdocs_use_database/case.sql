CREATE DATABASE db1;
USE db1;
CREATE TABLE t (a INT) WITH ('connector' = 'filesystem', 'path' = '${CASE_DIR}/t.jsonl', 'format' = 'json');
USE default_database;
CREATE TABLE out_rows (a INT) WITH ('connector' = 'print');
INSERT INTO out_rows SELECT a FROM db1.t;
