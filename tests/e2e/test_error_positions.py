"""Errors of a script point at their line and column in the script, with a caret.

A newcomer's report: a WITH option misspelled on line 15 of a script (``'scan.startup.mod'``)
was reported as ``script.sql:37``, the INSERT that opened the table; and the shell fed from a
pipe counted lines from the statement (``SELEC 1;`` after two lines said line 1) where
``streamsql run`` counts them in the file.
"""

import os
import re
import subprocess
import sys

import pytest

from streamsql import StreamEnvironment
from streamsql.core.errors import ConfigError, OptionError, SqlError
from streamsql.sql.ddl import option_position
from tests.cli_runner import run_streamsql

SCRIPT = """-- a newcomer's script
CREATE TABLE src (
  id INT
) WITH (
  'connector' = 'datagen',
  'number-of-rows' = '3',
  'rows-per-secnd' = '5'
);
CREATE TABLE out1 (id INT) WITH ('connector' = 'print', 'standard-error' = 'yes');
CREATE TABLE out2 (id INT) WITH ('connector' = 'blackhole');
INSERT INTO out2 SELECT id FROM src;
"""
# the misspelt key's value is masked: a key its connector does not know may be a misspelt secret
EXCERPT = "(line 7, column 3)\n    'rows-per-secnd' = '******'\n    ^^^^^^^^^^^^^^^^\n"


def _env(cwd) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), "STREAMSQL_HISTORY": str(cwd / "history")}


def _run(tmp_path, script: str) -> subprocess.CompletedProcess:
    (tmp_path / "s.sql").write_text(script)
    return _cli(tmp_path, "run", "s.sql")


def _cli(cwd, *args: str, text: str | None = None) -> subprocess.CompletedProcess:
    return run_streamsql(list(args), cwd, env=_env(cwd), input=text, timeout=120)


def _piped(tmp_path, script: str) -> subprocess.CompletedProcess:
    return _cli(tmp_path, "shell", text=script)


def test_unknown_option_points_at_its_key_in_the_create_table(tmp_path):
    proc = _run(tmp_path, SCRIPT)
    assert proc.returncode == 1, proc.stderr
    assert "s.sql: Table 'src': unknown option 'rows-per-secnd'" in proc.stderr
    assert EXCERPT in proc.stderr, proc.stderr
    assert "s.sql:11" not in proc.stderr  # not the INSERT's line


def test_bad_option_value_points_at_its_key(tmp_path):
    proc = _run(tmp_path, SCRIPT.replace("'rows-per-secnd'", "'rows-per-second'")
                .replace("INTO out2", "INTO out1"))
    assert proc.returncode == 1, proc.stderr
    assert "option 'standard-error' = 'yes'" in proc.stderr, proc.stderr
    assert "(line 9, column 57)\n  CREATE TABLE out1" in proc.stderr
    assert "\n" + " " * 58 + "^" * len("'standard-error'") + "\n" in proc.stderr


def test_piped_shell_positions_errors_in_its_input_as_run_does(tmp_path):
    text = "-- two lines\n\nSELEC 1;\n"
    (tmp_path / "f.sql").write_text(text)
    piped = _piped(tmp_path, text)
    run = _cli(tmp_path, "run", "f.sql")
    assert piped.returncode == 1 and run.returncode == 1
    excerpt = run.stderr.split("f.sql: ", 1)[1]
    assert "(line 3, column " in excerpt
    assert excerpt in piped.stdout + piped.stderr, (piped.stdout, piped.stderr)


def test_piped_shell_points_an_option_error_at_its_key(tmp_path):
    proc = _piped(tmp_path, SCRIPT)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1, out
    assert EXCERPT in out, out


def test_the_api_points_at_the_key_in_the_tables_ddl():
    env = StreamEnvironment()
    error = None
    try:
        env.execute_sql("CREATE TABLE t (id INT)\nWITH ('connector' = 'blackhole', 'bogus' = 'x')")
        try:
            env.execute_sql("INSERT INTO t VALUES (1)")
        except OptionError as e:
            error = e
        assert isinstance(error, ConfigError) and (error.table, error.option) == ("t", "bogus")
        assert (error.line, error.col, error.length) == (2, 34, 7)
    finally:
        env.close()


KAFKA = "'connector' = 'kafka', 'topic' = 'x', 'properties.bootstrap.servers' = '127.0.0.1:1'"


@pytest.mark.parametrize(("options", "says", "key"), [
    # these said "s.sql:5: Table 't': ..." at the statement that used the table, without a caret
    ("'connector' = 'filesystem', 'format' = 'csv'", "connector 'filesystem' requires option 'path'",
     "connector"),
    ("'connector' = 'kafka', 'topic' = 'x', 'format' = 'csv'",
     "requires option 'properties.bootstrap.servers'", "connector"),
    (KAFKA, "option 'format' (or 'value.format') is required", "connector"),
    (KAFKA + ", 'key.format' = 'json', 'value.format' = 'json'", "'key.format' needs 'key.fields'",
     "key.format"),
    (KAFKA + ", 'key.fields' = 'a', 'value.format' = 'json'", "'key.fields' needs 'key.format'",
     "key.fields"),
    (KAFKA + ", 'format' = 'json', 'value.format' = 'json'", "set either 'format' or 'value.format'",
     "value.format"),
    # a source without 'topic' said "s.sql:32: Table 't': set exactly one of 'topic' and
    # 'topic-pattern'" at the INSERT, once its job built the reader; Flink's words, in the DDL now
    ("'connector' = 'kafka', 'properties.bootstrap.servers' = '127.0.0.1:1', 'format' = 'json'",
     "Table 't': Either 'topic' or 'topic-pattern' must be set.", "connector"),
    (KAFKA + ", 'topic-pattern' = 'x.*', 'format' = 'json'",
     "Table 't': Option 'topic' and 'topic-pattern' shouldn't be set together.", "topic-pattern"),
    ("'connector' = 'upsert-kafka', 'properties.bootstrap.servers' = '127.0.0.1:1', "
     "'key.format' = 'json', 'value.format' = 'json'",
     "Table 't': Either 'topic' or 'topic-pattern' must be set.", "connector"),
])
def test_a_missing_or_conflicting_option_points_into_the_create_table(options, says, key):
    key_column = ", PRIMARY KEY (a) NOT ENFORCED" if "upsert-kafka" in options else ""
    ddl = f"CREATE TABLE t (a INT{key_column})\nWITH ({options})"
    env = StreamEnvironment()
    try:
        env.execute_sql(ddl)
        with pytest.raises(OptionError) as ei:
            env.execute_sql("SELECT a FROM t")
        e = ei.value
        assert says in e.message and (e.table, e.option) == ("t", key), str(e)
        assert (e.line, e.col, e.length) == option_position(ddl, key), str(e)
    finally:
        env.close()


def test_option_position():
    ddl = "CREATE TABLE t (a AS 'k' = b)\nWITH ('k' = 'v', /* c */ 'it''s'\n = 'x')"
    assert option_position(ddl, "k") == (2, 7, 3)
    assert option_position(ddl, "it's") == (2, 26, 7)
    assert option_position(ddl, "v") is None


def test_unknown_connector_points_at_the_connector_key(tmp_path):
    """'connector' = 'kafak' said ``s.sql:2: Unknown connector 'kafak'; available: ...``: no
    column, no caret, no suggestion."""
    script = ("-- a typo\nCREATE TABLE src (\n  id INT\n) WITH (\n"
              "  'connector' = 'kafak',\n  'topic' = 't'\n);\n")
    done = _run(tmp_path, script)
    assert done.returncode == 1
    said = "Unknown connector 'kafak'; did you mean 'kafka'? (available: blackhole, "
    assert said in done.stderr, done.stderr
    assert "(line 5, column 3)\n    'connector' = 'kafak',\n    ^^^^^^^^^^^\n" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr


def test_a_decimal_out_of_bounds_is_refused_at_its_place_in_flinks_words():
    """A newcomer's DECIMAL(40, 2) gave pyarrow's text as an internal error in CREATE TABLE
    ('Internal error (a bug in StreamSQL ...): precision should be between 1 and 38') and DuckDB's
    in a CAST ('Cannot evaluate expression: Binder Error: DECIMAL type width ...', column 1)."""
    env = StreamEnvironment()
    try:
        for sql, where, words in [
            ("CREATE TABLE t (x DECIMAL(40, 2)) WITH ('connector' = 'blackhole')", (1, 17),
             "Column 'x': Decimal precision must be between 1 and 38 (both inclusive): DECIMAL(40, 2)"),
            ("CREATE TABLE t (x INT,\n y DECIMAL(5, 6)) WITH ('connector' = 'blackhole')", (2, 2),
             "Column 'y': Decimal scale must be between 0 and the precision 5 (both inclusive)"),
            ("SELECT CAST(1 AS DECIMAL(0, 0))", (1, 18),
             "CAST to an invalid type: Decimal precision must be between 1 and 38 (both inclusive)"),
        ]:
            try:
                env.execute_sql(sql)
            except SqlError as e:
                assert (e.line, e.col) == where and words in e.message, (sql, e)
            else:
                msg = f"accepted: {sql}"
                raise AssertionError(msg)
    finally:
        env.close()


def test_an_interval_literal_that_is_no_number_is_refused_when_planned():
    """``INTERVAL 'x' SECOND`` planned, then failed the job with "CAST('x' AS DOUBLE) failed";
    Flink (Calcite) refuses it when planning, with this message."""
    env = StreamEnvironment()
    try:
        try:
            env.execute_sql("SELECT CAST(INTERVAL 'x' SECOND AS STRING)")
        except SqlError as e:
            assert e.message == "Illegal interval literal format 'x' for INTERVAL SECOND"
            assert (e.line, e.col) == (1, 22)
        else:
            msg = "accepted"
            raise AssertionError(msg)
    finally:
        env.close()


@pytest.mark.parametrize(("action", "message", "underlined"), [
    ("ADD b INT", "Try to add a column `b` which already exists in the table.", "b"),
    ("ADD (c INT, a BIGINT FIRST)", "Try to add a column `a` which already exists", "a"),
    ("ADD\n  (c INT,\n   b INT)", "Try to add a column `b` which already exists", "b"),
    ("MODIFY (a BIGINT, x INT)", "Try to modify a column `x` which does not exist", "x"),
    ("DROP (a, y)", "The column `y` does not exist in the base table.", "y"),
    ("RENAME a TO b", "The column `b` already existed in table schema.", "b"),
    ("RENAME z TO q", "The column `z` does not exist in the base table.", "z"),
    ("ADD PRIMARY KEY (a) NOT ENFORCED", "The base table has already defined the primary key", "PRIMARY KEY"),
])
def test_alter_table_errors_point_at_the_column(tmp_path, action, message, underlined):
    """A newcomer's report: ALTER TABLE ... ADD of an existing column put the caret at column 1."""
    env = StreamEnvironment({"execution.checkpointing.dir": str(tmp_path / "chk")})
    env.execute_sql("CREATE TABLE t (a INT, b STRING, PRIMARY KEY (a) NOT ENFORCED) "
                    "WITH ('connector' = 'datagen')")
    sql = f"ALTER TABLE t {action}"
    with pytest.raises(SqlError, match=message.replace("(", r"\(").replace(")", r"\)")) as err:
        env.execute_sql(sql)
    e = err.value
    at = sum(len(x) + 1 for x in sql.split("\n")[:e.line - 1]) + e.col - 1
    where = [m.start() for m in re.finditer(rf"\b{underlined}\b", sql)][-1]  # the action's column
    assert (at, sql[at:at + e.length]) == (where, underlined), str(e)


def test_a_bad_set_value_points_at_its_key(tmp_path):
    # said "s.sql:3: 'state.backend.type' = 'rocks' is not one of ..." without a column or caret,
    # where every other error of a script has both
    proc = _run(tmp_path, "-- settings\nCREATE TABLE t (x INT) WITH ('connector' = 'blackhole');\n"
                          "SET\n  'state.backend.type' = 'rocks';\n")
    assert proc.returncode == 1, proc.stderr
    assert ("s.sql: 'state.backend.type' = 'rocks' is not one of 'rocksdb', 'hashmap' (line 4, column 3)\n"
            "    'state.backend.type' = 'rocks';\n    ^^^^^^^^^^^^^^^^^^^^\n") in proc.stderr, proc.stderr
    with StreamEnvironment() as env, pytest.raises(OptionError) as ei:  # still a ConfigError
        env.execute_sql("SET 'execution.checkpointing.interval' = '1.5 s'")
    assert isinstance(ei.value, ConfigError) and (ei.value.line, ei.value.col) == (1, 5), str(ei.value)


def test_one_upsert_kafka_buffer_flush_option_alone_points_at_it():
    """Flink 2.3's UpsertKafkaDynamicTableFactory refuses a sink with one of the two options > 0
    (its words); StreamSQL refuses the INSERT at planning, at the option's key."""
    ddl = ("CREATE TABLE t (a INT, PRIMARY KEY (a) NOT ENFORCED)\nWITH ('connector' = 'upsert-kafka', "
           "'topic' = 'x', 'properties.bootstrap.servers' = '127.0.0.1:1', 'key.format' = 'json',\n"
           "'value.format' = 'json', 'sink.buffer-flush.interval' = '1 s')")
    env = StreamEnvironment()
    try:
        env.execute_sql(ddl)
        with pytest.raises(OptionError) as ei:
            env.execute_sql("INSERT INTO t VALUES (1)")
        e = ei.value
        assert ("'sink.buffer-flush.max-rows' and 'sink.buffer-flush.interval' must be set to be greater "
                "than zero together to enable sink buffer flushing.") in e.message, str(e)
        assert (e.line, e.col, e.length) == option_position(ddl, "sink.buffer-flush.interval"), str(e)
    finally:
        env.close()
