"""Small statements against Apache Flink 2.3's answers (``flink_statements/flink.json``).

The file is written by ``scripts/flink_statements.py`` (PyFlink, never by hand): each script's
statements with Flink's result rows or its error. Each script runs here in one environment,
statement by statement: the same columns and rows (order aside), or an error where Flink fails,
containing Flink's root cause at Flink's line:column when Flink gives one, unless ``OURS`` says
what ours says instead (and why).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from streamsql import StreamEnvironment
from streamsql.core.errors import StatementError, StreamSQLError

HERE = Path(__file__).parent / "flink_statements"
FLINK = json.loads((HERE / "flink.json").read_text())
_RUNNING_DEFINE = ("SELECT * FROM ev MATCH_RECOGNIZE (ORDER BY ts MEASURES LAST(A.a) AS x PATTERN (A B) "
                   "DEFINE A AS ")
#: Where ours refuses with other words than Flink's root cause: a substring of ours (the why in a comment).
OURS: dict[str, str] = {
    # Flink's code generation fails, unpositioned: "Unsupported call: RUNNING(INT)"; refused here at RUNNING
    "SELECT * FROM ev MATCH_RECOGNIZE (ORDER BY ts MEASURES RUNNING LAST(A.a) AS x PATTERN (A B) "
    "DEFINE A AS a > 0)": "RUNNING is not supported: ONE ROW PER MATCH",
    # Flink quotes its own unparsed call ('RUNNING LAST(`*`.`a`, 0)'); ours the call as written
    _RUNNING_DEFINE + "RUNNING LAST(a) > 0)": "Cannot use RUNNING/FINAL in DEFINE 'RUNNING LAST(a)'",
    _RUNNING_DEFINE + "FINAL LAST(A.a) > 0)": "Cannot use RUNNING/FINAL in DEFINE 'FINAL LAST(A.a)'",
    # Flink parses it, then its in-memory catalog fails ("listProcedures is not implemented"); no
    # procedures here: refused by the parser, which names the SHOW statements there are
    "SHOW PROCEDURES ILIKE 'x'": "Expecting TABLES, VIEWS, COLUMNS, JOBS",
    # a string literal inside ROW(...) or MAP[...] is typed STRING here, CHAR(n) in Flink: the type
    # named differs
    "SELECT CAST(ROW(1, 'a') AS INT)": "Cast function cannot convert value of type RecordType:peek_no_expand("
                                       "INTEGER EXPR$0, VARCHAR(2147483647) EXPR$1) to type INTEGER",
    "SELECT CAST(MAP['a', 1] AS BIGINT)": "Cast function cannot convert value of type (VARCHAR(2147483647), "
                                          "INTEGER) MAP to type BIGINT",
    # Flink 2.3 fails without a message of its own (Py4J's "An error occurred while calling ...executeSql")
    "SELECT CAST('[1]' AS ARRAY<INT>)": "Cast function cannot convert value of type VARCHAR(2147483647) to "
                                        "type INTEGER ARRAY",
}
#: Refusals shown elsewhere than Flink's position: a refused CAST is shown at its operand (a choice of
#: ours, tests/functions/test_planning.py), Flink's at the whole call.
ELSEWHERE = {"SELECT CAST(ARRAY[1] AS INT)", "SELECT CAST(1 AS ARRAY<INT>)",
             "SELECT CAST(ROW(1, 'a') AS INT)", "SELECT CAST(MAP['a', 1] AS BIGINT)",
             "SELECT CAST(ARRAY[1] AS ROW<a INT>)", "SELECT CAST(ARRAY[1] AS BOOLEAN)"}
#: Where ours answers and Flink refuses (on purpose): the reason.
ANSWERED: dict[str, str] = {}
_AT = re.compile(r"(?:From line|at line) (\d+), column (\d+)")


def _run(env: StreamEnvironment, sql: str):
    result = env.execute_sql(sql.replace("${DIR}", str(HERE)))
    rows = result.rows if result.kind == "rows" else [r for _, r in result.collect(timeout=60)] \
        if result.kind == "query" else []
    return result, sorted([None if v is None else str(v) for v in r] for r in rows)


@pytest.mark.parametrize("script", sorted(FLINK))
def test_script_as_flink(script: str) -> None:
    with StreamEnvironment() as env:
        env.execute_sql("SET 'table.local-time-zone' = 'UTC'")
        env.execute_sql(f"SET 'python.files' = '{HERE / 'describe_udfs.py'}'")  # PyFlink's: on its path
        for step in FLINK[script]:
            sql = step["sql"]
            if "error" in step and sql not in ANSWERED:
                with pytest.raises(StreamSQLError) as caught:
                    _run(env, sql)
                cause = step["error"][-1].split("Exception: ", 1)[-1]
                expected = OURS.get(sql) or _AT.sub("", cause).split(" at line")[0].strip(" :.")
                assert expected in str(caught.value), (sql, str(caught.value))
                at = _AT.search(step["error"][0])
                if at and isinstance(caught.value, StatementError) and sql not in ELSEWHERE:
                    assert (caught.value.line, caught.value.col) == (int(at[1]), int(at[2])), sql
                continue
            result, rows = _run(env, sql)
            if "rows" in step and step["columns"] != ["result"]:
                assert result.columns == step["columns"], sql
                assert rows == sorted(step["rows"]), sql
