"""DDL as Apache Flink 2.3 takes it: tables without a connector, an unknown metadata key, DESCRIBE.

``ddl_flink.json`` is written by ``scripts/flink_ddl_checks.py`` on PyFlink (never by hand).

- A table without a ``'connector'`` option (a schema for ``LIKE``) is created, described and
  copied by LIKE, and fails only where it is read or written, with Flink's reason. StreamSQL
  refused it at CREATE ("Unknown connector '<missing 'connector' option>'").
- An unknown metadata key fails with Flink's message, pointing at the key in the CREATE TABLE.
- DESCRIBE prints metadata columns as Flink (``METADATA``, ``FROM 'key'``, ``VIRTUAL``) and
  identifiers in backquotes.
- An unquoted reserved word as a column name (``year``, ``value``, ``count``) is refused as
  Flink's parser refuses it, at the word; the words Flink takes (``key``, ``data``) are taken.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from streamsql import StreamEnvironment
from streamsql.core.errors import StatementError, StreamSQLError

FLINK = json.loads((Path(__file__).parent / "ddl_flink.json").read_text())
SCENARIOS = {s["name"]: s["steps"] for s in FLINK["scenarios"]}
#: DESCRIBE extras StreamSQL prints otherwise (see streamsql/plan/describe.py).
EXTRAS_DIFFER = {"p23", "p24"}


def _root_cause(error: str) -> str:
    return error.split(" / ")[-1]


@pytest.mark.parametrize("name", ["no_connector", "unknown_metadata_key"])
def test_statements_as_flink(name):
    with StreamEnvironment({}) as env:
        for step in SCENARIOS[name]:
            if step["flink"] == "ok":
                result = env.execute_sql(step["statement"])
                if "rows" in step:
                    assert [list(r) for r in result.rows] == step["rows"]
                continue
            with pytest.raises(StreamSQLError) as e:
                env.execute_sql(step["statement"])
            message = e.value.message if isinstance(e.value, StatementError) else str(e.value)
            assert _root_cause(step["flink_error"]) in message, (step["flink_error"], message)
            head = step["flink_error"].split("\n")[0]
            if head.startswith("Unable to create a"):  # the table, reading or writing, as Flink says
                assert head.rstrip(".") in message


def test_unknown_metadata_key_points_at_the_key():
    ddl = ("CREATE TABLE k (a INT,\n  x STRING METADATA FROM 'foo') WITH ('connector' = 'kafka', "
           "'topic' = 't', 'properties.bootstrap.servers' = '127.0.0.1:9092', 'format' = 'json', "
           "'scan.startup.mode' = 'earliest-offset')")
    with StreamEnvironment({}) as env:
        env.execute_sql(ddl)
        with pytest.raises(StatementError) as e:
            env.execute_sql("SELECT * FROM k")
    assert (e.value.line, e.value.col, e.value.length) == (2, 26, 5)
    assert "  x STRING METADATA FROM 'foo') WITH" in str(e.value)
    assert "\n                           ^^^^^\n" in str(e.value)


def test_describe_extras_and_watermarks_as_flink():
    steps = SCENARIOS["describe_texts"]
    with StreamEnvironment({}) as env:
        for step in steps:
            result = env.execute_sql(step["statement"])
            if "rows" not in step:
                continue
            for ours, flink in zip(result.rows, step["rows"]):
                if ours[0] not in EXTRAS_DIFFER:
                    assert [ours[0], *ours[4:]] == [flink[0], *flink[4:]]
            assert len(result.rows) == len(step["rows"])


@pytest.mark.parametrize("word", sorted(FLINK["words"]))
def test_unquoted_words_as_column_names_as_flink(word):
    """StreamSQL took every one of them; Flink refuses 50 of these 77 words."""
    steps = FLINK["words"][word]
    with StreamEnvironment({}) as env:
        if steps[0]["flink"] == "ok":
            env.execute_sql(steps[0]["statement"])
            env.execute_sql(steps[1]["statement"])
            return
        with pytest.raises(StatementError) as e:
            env.execute_sql(steps[0]["statement"])
    # Flink names the word (with the next token after PRIMARY or WATERMARK: "primary INT")
    if word == "watermark":  # the parser reads a WATERMARK clause there, and says what it expected
        assert e.value.message.startswith("Expecting WATERMARK FOR <column> AS <expression>")
        return
    flink = re.search(r'Encountered "(\w+)[^"]*" at line (\d+), column (\d+)', steps[0]["flink_error"])
    assert e.value.message.startswith(f'SQL parse failed. Encountered "{flink.group(1)}"')
    assert (e.value.line, e.value.col) == (int(flink.group(2)), int(flink.group(3)))
