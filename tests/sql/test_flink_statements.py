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
#: Where ours refuses with other words than Flink's root cause: a substring of ours, and why.
OURS: dict[str, str] = {}
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
                if at and isinstance(caught.value, StatementError) and sql not in OURS:
                    assert (caught.value.line, caught.value.col) == (int(at[1]), int(at[2])), sql
                continue
            result, rows = _run(env, sql)
            if "rows" in step and step["columns"] != ["result"]:
                assert result.columns == step["columns"], sql
                assert rows == sorted(step["rows"]), sql
