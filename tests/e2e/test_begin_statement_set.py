"""A script's ``BEGIN STATEMENT SET; INSERT ...; END;`` runs as one job, as Flink's SQL client runs it.

A newcomer's Flink script (``sql-client.sh -f``) with a ``BEGIN STATEMENT SET;`` block failed
``streamsql run`` at once (``Statement BeginStatementSet is not supported here``), though the
shell's prompt took the same block: ``run`` (and ``shell -f``) now submit the block's INSERTs as
one job, as ``EXECUTE STATEMENT SET BEGIN ... END`` (Flink's ``StatementSet``), and refuse a
block that is not one before any statement runs.
"""

import os
import subprocess
import sys

import pytest

from streamsql.core.errors import SqlError
from streamsql.environment import StreamEnvironment
from streamsql.sql import nodes
from streamsql.sql.parser import parse_script
from tests.cli_runner import run_streamsql

SCRIPT = """CREATE TABLE t (x INT) WITH ('connector' = 'datagen', 'number-of-rows' = '3',
  'fields.x.kind' = 'sequence', 'fields.x.start' = '1', 'fields.x.end' = '3');
CREATE TABLE p1 (x INT) WITH ('connector' = 'print', 'print-identifier' = 'a');
CREATE TABLE p2 (y INT) WITH ('connector' = 'print', 'print-identifier' = 'b');
BEGIN STATEMENT SET;
-- both sinks in one job
INSERT INTO p1 SELECT x FROM t;
INSERT INTO p2
  SELECT x * 10 FROM t;
END;
"""


def _cli(cwd, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), "STREAMSQL_HISTORY": str(cwd / "history")}
    return run_streamsql(list(args), cwd, env=env, timeout=120)


@pytest.mark.parametrize("command", [["run"], ["shell", "-f"]])
def test_begin_statement_set_block_runs_as_one_job(tmp_path, command):
    (tmp_path / "s.sql").write_text(SCRIPT)
    proc = _cli(tmp_path, *command, "s.sql")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.count("Job ID:") == 1, proc.stdout
    lines = sorted(ln for ln in proc.stdout.splitlines() if ln.startswith(("a>", "b>")))
    assert lines == ["a> +I[1]", "a> +I[2]", "a> +I[3]", "b> +I[10]", "b> +I[20]", "b> +I[30]"]


def test_block_is_one_statement_set_of_its_inserts():
    statements = parse_script(SCRIPT)
    assert [type(t).__name__ for _, t in statements] == ["Create", "Create", "Create", "StatementSet"]
    block, tree = statements[-1]
    assert isinstance(tree, nodes.StatementSet)
    assert len(tree.expressions) == 2
    assert (block.line, block.col) == (5, 1)


def test_error_inside_the_block_points_at_its_script_line(tmp_path):
    (tmp_path / "s.sql").write_text(SCRIPT.replace("x * 10 FROM t;", "nope * 10 FROM t;"))
    proc = _cli(tmp_path, "run", "s.sql")
    assert proc.returncode == 1
    assert "Job ID:" not in proc.stdout
    assert "(line 9, column 10)\n    SELECT nope * 10 FROM t;\n           ^^^^" in proc.stderr, proc.stderr


@pytest.mark.parametrize(("script", "message", "where"), [
    ("BEGIN STATEMENT SET;\nSELECT 1;\nEND;\n", "Only INSERT statements can be added", (2, 1)),
    ("BEGIN STATEMENT SET;\n", "BEGIN STATEMENT SET has no END", (1, 1)),
    ("END;\n", "No statement set is open", (1, 1)),
    ("BEGIN STATEMENT SET;\nEND;\n", "needs at least one INSERT", (2, 1)),
    ("BEGIN STATEMENT SET;\nBEGIN STATEMENT SET;\nEND;\n", "already open", (2, 1)),
])
def test_malformed_blocks_are_refused_before_anything_runs(script, message, where):
    with pytest.raises(SqlError, match=message) as e:
        parse_script(script, "s.sql")
    assert (e.value.line, e.value.col) == where


def test_the_inserts_of_a_statement_set_read_one_scan_of_a_table(tmp_path):
    """As Flink 2.3 plans a statement set (one ``TableSourceScan ... (reuse_id=[1])`` read by every
    sink): both sinks get the same rows of a non-deterministic source. With a scan per INSERT they
    got two different random streams (and every statement set read its sources twice)."""
    tables = """CREATE TABLE r (x INT) WITH ('connector' = 'datagen', 'number-of-rows' = '40',
  'fields.x.min' = '1', 'fields.x.max' = '1000000');
CREATE TABLE p1 (x INT) WITH ('connector' = 'print', 'print-identifier' = 'a');
CREATE TABLE p2 (x INT) WITH ('connector' = 'print', 'print-identifier' = 'b');
"""
    inserts = "INSERT INTO p1 SELECT x FROM r;\nINSERT INTO p2 SELECT x FROM r WHERE x > 0;\n"
    env = StreamEnvironment()
    for statement in tables.split(";\n")[:-1]:
        env.execute_sql(statement)
    plan = env.execute_sql(f"EXPLAIN STATEMENT SET BEGIN\n{inserts}END").message
    assert plan.count("TableSourceScan(table=[r]") == 1, plan
    (tmp_path / "s.sql").write_text(f"{tables}EXECUTE STATEMENT SET BEGIN\n{inserts}END;\n")
    proc = _cli(tmp_path, "run", "s.sql")
    assert proc.returncode == 0, proc.stderr
    rows = {side: sorted(ln[3:] for ln in proc.stdout.splitlines() if ln.startswith(f"{side}>"))
            for side in "ab"}
    assert len(rows["a"]) == 40 and rows["a"] == rows["b"]


def test_tables_of_one_name_in_two_databases_are_two_scans(tmp_path):
    """``r`` and ``db2.r``, declared by the same text, are two tables: Flink 2.3 plans a
    ``TableSourceScan`` of each (``[[default_catalog, default_database, r]]``, ``[[default_catalog,
    db2, r]]``) and reuses neither. They were one scan (equal by name, DDL text and options), in a
    statement set and in a join of the two: the sink of ``db2.r`` read ``r``. (The rows are the same
    either way here: this datagen's values are a function of seed, column and row number.)"""
    ddl = ("CREATE TABLE r (x INT) WITH ('connector' = 'datagen', 'number-of-rows' = '40', "
           "'fields.x.min' = '1', 'fields.x.max' = '1000000');\n")
    tables = (f"CREATE DATABASE db2;\n{ddl}USE db2;\n{ddl}USE default_database;\n"
              "CREATE TABLE p1 (x INT) WITH ('connector' = 'print', 'print-identifier' = 'a');\n"
              "CREATE TABLE p2 (x INT) WITH ('connector' = 'print', 'print-identifier' = 'b');\n")
    inserts = "INSERT INTO p1 SELECT x FROM r;\nINSERT INTO p2 SELECT x FROM db2.r;\n"
    env = StreamEnvironment()
    for statement in tables.split(";\n")[:-1]:
        env.execute_sql(statement)
    plan = env.execute_sql(f"EXPLAIN STATEMENT SET BEGIN\n{inserts}END").message
    assert plan.count("TableSourceScan(table=[r]") == 2 and "Reused" not in plan, plan
    join = env.execute_sql("EXPLAIN SELECT a.x FROM r a JOIN db2.r b ON a.x = b.x").message
    assert join.count("TableSourceScan(table=[r]") == 2 and "Reused" not in join, join
    env.close()
    (tmp_path / "s.sql").write_text(f"{tables}EXECUTE STATEMENT SET BEGIN\n{inserts}END;\n")
    proc = _cli(tmp_path, "run", "s.sql")
    assert proc.returncode == 0, proc.stderr
    rows = {side: sorted(ln[3:] for ln in proc.stdout.splitlines() if ln.startswith(f"{side}>"))
            for side in "ab"}
    assert len(rows["a"]) == len(rows["b"]) == 40
