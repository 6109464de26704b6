"""Python UDFs through SQL and the environment: declaration, resolution, SHOW FUNCTIONS, errors."""

from __future__ import annotations

import datetime
import importlib.util
import re

import pyarrow as pa
import pytest

from streamsql import StreamEnvironment
from streamsql.core.errors import SqlError, StreamSQLError
from streamsql.functions.udf import udf

MODULE = '''
from streamsql.functions.udf import udf

@udf(result_type="STRING")
def upper(s):
    return None if s is None else "udf:" + s

def no_types(x):
    return x

def length(s: str) -> int:
    return -1 if s is None else len(s) * 10

NOT_CALLABLE = 3
'''


@pytest.fixture
def env(tmp_path):
    (tmp_path / "t.json").write_text('{"s": "ab", "n": 1}\n{"s": null, "n": 2}\n{"s": "xyz", "n": 2}\n')
    (tmp_path / "my_udfs_mod.py").write_text(MODULE)
    with StreamEnvironment({"state.dir": str(tmp_path / "state"),
                            "execution.checkpointing.dir": str(tmp_path / "cp"),
                            "python.files": str(tmp_path / "my_udfs_mod.py")}) as e:
        e.execute_sql(f"CREATE TABLE t (s STRING, n INT) WITH ('connector' = 'filesystem', "
                      f"'path' = '{tmp_path}/t.json', 'format' = 'json')")
        yield e


def rows(env, sql: str) -> list:
    return sorted((row for _, row in env.execute_sql(sql).collect(timeout=30)), key=str)


def test_a_system_function_shadows_a_builtin_and_another_does_not(env):
    env.execute_sql("CREATE FUNCTION `upper` AS 'my_udfs_mod.upper' LANGUAGE PYTHON")
    assert rows(env, "SELECT UPPER(s) FROM t") == sorted([("AB",), (None,), ("XYZ",)], key=str)
    env.execute_sql("DROP FUNCTION `upper`")
    env.execute_sql("CREATE TEMPORARY SYSTEM FUNCTION `upper` AS 'my_udfs_mod.upper' LANGUAGE PYTHON")
    assert rows(env, "SELECT UPPER(s) FROM t") == sorted([("udf:ab",), (None,), ("udf:xyz",)], key=str)


def test_udf_in_where_and_group_by(env):
    env.execute_sql("CREATE FUNCTION len10 AS 'my_udfs_mod.length' LANGUAGE PYTHON")
    assert rows(env, "SELECT s FROM t WHERE len10(s) > 20") == [("xyz",)]
    result = env.execute_sql("SELECT len10(s) AS k, COUNT(*) AS c FROM t GROUP BY len10(s)")
    changes = result.collect(timeout=30)
    final = {row[0]: row[1] for kind, row in changes if kind.short in ("+I", "+U")}
    assert final == {20: 1, -1: 1, 30: 1}


def test_show_functions(env):
    env.create_temporary_function("twice", udf(lambda x: x, result_type="INT"))
    env_fns = env.execute_sql("SHOW FUNCTIONS").rows
    assert ("upper",) in env_fns and ("json_value",) in env_fns
    # Flink 2.3's SHOW FUNCTIONS lists aggregates and window functions too
    assert {("count",), ("sum",), ("listagg",), ("stddev",), ("row_number",), ("lag",)} <= set(env_fns)
    env.execute_sql("CREATE TEMPORARY FUNCTION IF NOT EXISTS len10 AS 'my_udfs_mod.length' LANGUAGE PYTHON")
    env.execute_sql("CREATE TEMPORARY FUNCTION IF NOT EXISTS len10 AS 'my_udfs_mod.length' LANGUAGE PYTHON")
    assert env.execute_sql("SHOW USER FUNCTIONS").rows == [("len10",), ("twice",)]
    env.drop_temporary_function("len10")
    env.execute_sql("DROP TEMPORARY FUNCTION IF EXISTS len10")
    assert env.execute_sql("SHOW USER FUNCTIONS").rows == [("twice",)]


@pytest.mark.parametrize("sql, message", [
    ("CREATE FUNCTION f AS 'no_such_module_x.f' LANGUAGE PYTHON", "Cannot import 'no_such_module_x'"),
    ("CREATE FUNCTION f AS 'my_udfs_mod.missing' LANGUAGE PYTHON",
     "Module 'my_udfs_mod' has no function 'missing'"),
    ("CREATE FUNCTION f AS 'my_udfs_mod.no_types' LANGUAGE PYTHON", "Function 'f': declare its result type"),
    ("CREATE FUNCTION f AS 'com.acme.F' LANGUAGE JAVA", "only LANGUAGE PYTHON is supported"),
    ("CREATE FUNCTION f AS 'com.acme.F'", "only LANGUAGE PYTHON is supported"),
    ("DROP FUNCTION nope", "Function 'nope' does not exist"),
])
def test_refused(env, sql, message):
    with pytest.raises(SqlError, match=message):
        env.execute_sql(sql)


@pytest.mark.parametrize("path, message", [
    ("no_such_module_x.f", "Cannot import 'no_such_module_x'"),
    ("my_udfs_mod.missing", "Module 'my_udfs_mod' has no function 'missing'"),
    ("my_udfs_mod.NOT_CALLABLE", "Function 'f': 'my_udfs_mod.NOT_CALLABLE' is not callable"),
    ("my_udfs_mod.no_types", "Function 'f': declare its result type"),
    ("nodots", "Function path 'nodots' must be 'module.function'"),
])
def test_a_function_that_cannot_be_loaded_is_pointed_at(env, path, message):
    """The error of a CREATE FUNCTION whose Python function cannot be loaded or declared gives the
    line:column of the 'module.function' literal and a caret under it, like any SQL error."""
    sql = f"CREATE TEMPORARY FUNCTION f AS\n    '{path}' LANGUAGE PYTHON"
    with pytest.raises(SqlError, match=re.escape(message)) as ei:
        env.execute_sql(sql)
    assert (ei.value.line, ei.value.col) == (2, 5)
    caret = "^" * (len(path) + 2)
    assert f"(line 2, column 5)\n      '{path}' LANGUAGE PYTHON\n      {caret}" in str(ei.value)


def test_a_module_written_for_pyflink_is_told_what_to_import(env, tmp_path):
    """A Flink user's UDF module imports pyflink.table.udf, which is not installed: the error says
    which module to import instead, not to add pyflink to 'python.files'."""
    if importlib.util.find_spec("pyflink") is not None:
        pytest.skip("pyflink is installed here")
    (tmp_path / "flink_udfs.py").write_text("from pyflink.table.udf import udf\n")
    env.execute_sql(f"SET 'python.files' = '{tmp_path / 'flink_udfs.py'}'")
    with pytest.raises(SqlError) as ei:
        env.execute_sql("CREATE TEMPORARY FUNCTION f AS 'flink_udfs.f' LANGUAGE PYTHON")
    assert "No module named 'pyflink'" in str(ei.value)
    assert "AggregateFunction and TableFunction from streamsql.functions.udf instead of" in str(ei.value)
    assert "python.files' or the Python path" not in str(ei.value)


def test_a_duplicate_is_refused(env):
    env.execute_sql("CREATE FUNCTION len10 AS 'my_udfs_mod.length' LANGUAGE PYTHON")
    with pytest.raises(SqlError, match="Function 'len10' already exists"):
        env.execute_sql("CREATE FUNCTION len10 AS 'my_udfs_mod.length' LANGUAGE PYTHON")


def test_wrong_arguments_are_refused_at_the_call(env):
    env.create_temporary_function("halve", udf(lambda x: x / 2, result_type="DOUBLE", input_types=["DOUBLE"]))
    with pytest.raises(SqlError) as ei:
        env.execute_sql("SELECT s, halve(s) FROM t")
    assert ("No match found for function signature HALVE(<CHARACTER>); supported: halve(<NUMERIC>)"
            in ei.value.message)
    assert (ei.value.line, ei.value.col) == (1, 11)


def test_untyped_arguments_take_the_call_types(env):
    env.create_temporary_function("kind_of", udf(lambda x: type(x).__name__, result_type="STRING"))
    assert rows(env, "SELECT kind_of(s), kind_of(n) FROM t WHERE s = 'ab'") == [("str", "int")]


def test_a_vectorized_function_failing_names_the_row(env):
    def boom(values):
        if None in values.to_pylist():
            msg = "no NULLs please"
            raise ValueError(msg)
        return values

    env.create_temporary_function("boom", udf(boom, result_type="STRING", input_types=["STRING"],
                                              func_type="vectorized"))
    failure = r"Python function 'boom' .* failed on \(None\): ValueError: no NULLs"
    with pytest.raises(StreamSQLError, match=failure):
        rows(env, "SELECT boom(s) FROM t")


@pytest.mark.parametrize(("fn", "vectorized", "says"), [
    (lambda n: n * 10**12, False, r"failed on \(2\): it returned 2000000000000, which is not a value of its "
                                  r"result type INT \(record "),
    (lambda n: "two" if n == 2 else n, False,
     r"failed on \(2\): it returned 'two', which is not a value of its result type INT \(record "),
    (lambda ns: [n * 10**12 for n in ns.to_pylist()], True, r"failed on \(2\): it returned 2000000000000"),
])
def test_a_result_that_does_not_fit_the_result_type_says_so(env, fn, vectorized, says):
    """Not Arrow's words (``ArrowInvalid: Value ... too large to fit in C integer type``)."""
    env.create_temporary_function("scaled", udf(fn, result_type="INT", input_types=["INT"],
                                                func_type="vectorized" if vectorized else "general"))
    with pytest.raises(StreamSQLError) as ei:
        rows(env, "SELECT scaled(n) FROM t WHERE n = 2")
    text = str(ei.value).splitlines()[0]
    assert re.search(r"Python function 'scaled' .* " + says, text), text
    assert "Arrow" not in text


def test_a_function_argument_is_computed_once_per_row(env):
    """DATE_FORMAT and TO_TIMESTAMP name their argument many times in their DuckDB SQL; a Python
    function under them still runs once per row, as Flink evaluates a call's arguments once (its
    side effects and cost are not multiplied). In a CASE branch, where DuckDB eliminates no
    repeated expression, it ran twice per row before."""
    seen = []

    def stamp(s):
        seen.append(s)
        return None if s is None else f"2024-01-0{len(s)} 10:00:00"

    env.create_temporary_function("stamp", udf(stamp, result_type="STRING", input_types=["STRING"]))
    assert rows(env, "SELECT CASE WHEN n > 0 THEN DATE_FORMAT(TO_TIMESTAMP(stamp(s)), 'yyyy-MM-dd HH') END "
                     "FROM t") == [("2024-01-02 10",), ("2024-01-03 10",), (None,)]
    assert sorted(seen, key=str) == sorted(["ab", None, "xyz"], key=str)


@pytest.mark.parametrize("vectorized", [False, True])
def test_a_time_result_keeps_whole_milliseconds_as_pyflink(env, vectorized):
    """PyFlink's ``TimeCoderImpl.time_to_internal`` keeps ``microsecond // 1000`` of a returned
    ``datetime.time`` and ignores its tzinfo: 12:00:00.123999+02:00 is TIME 12:00:00.123. The
    microseconds were kept before, so the value showed as 12:00:00.123 but was not equal to it."""
    value = datetime.time(12, 0, 0, 123999, tzinfo=datetime.timezone(datetime.timedelta(hours=2)))
    fn = (lambda ns: pa.array([value] * len(ns), pa.time64("us"))) if vectorized else (lambda n: value)
    env.create_temporary_function("noon", udf(fn, result_type="TIME(3)", input_types=["INT"],
                                              func_type="vectorized" if vectorized else "general"))
    got = rows(env, "SELECT CAST(noon(n) AS STRING), noon(n) = TIME '12:00:00.123' FROM t WHERE n = 1")
    assert got == [("12:00:00.123", True)]


def test_a_nanosecond_timestamp_argument_is_pyflinks_datetime(env):
    """PyFlink's ``TimestampCoderImpl`` hands a TIMESTAMP(9) to a Python function as a ``datetime``
    cut down to its microsecond (``milliseconds % 1000 * 1000 + nanoseconds // 1000``): so here,
    pandas importable or not (pyarrow gave a ``pandas.Timestamp``, or failed without pandas)."""
    env.create_temporary_function("shown", udf(lambda x: f"{type(x).__name__} {x.isoformat()}",
                                               result_type="STRING", input_types=["TIMESTAMP(9)"]))
    assert rows(env, "SELECT shown(CAST(s AS TIMESTAMP(9))) FROM (VALUES ('1969-12-31 23:59:59.999999999'), "
                     "('2024-01-01 10:00:00.123456789')) AS v(s)") == [
        ("datetime 1969-12-31T23:59:59.999999",), ("datetime 2024-01-01T10:00:00.123456",)]
