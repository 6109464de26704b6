"""Hints after a table's name, against Apache Flink 2.3's answers (tests/plan/table_hints_flink.json,
written by scripts/flink_table_hints.py): the hints Flink knows other than OPTIONS are checked and
change nothing (they were refused here: "Hint: LOOKUP should be registered ..."), the others are
refused as Flink refuses them, and a ``*/`` inside a hint's quoted value does not end the hint.
After SELECT too: MULTI_JOIN, ALIAS, JSON_AGGREGATE_WRAPPED and OPTIONS are checked as Flink's and
taken without effect (they were refused: "SQL hints (/*+ ... */) are not supported yet")."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from streamsql import StreamEnvironment
from streamsql.core.errors import StreamSQLError

FLINK = json.loads((Path(__file__).parent / "table_hints_flink.json").read_text())


def _words(flink_error: str) -> list[str]:
    """What our refusal must say, from Flink's message (the same, but where the wording differs)."""
    if flink_error.startswith("SQL parse failed"):
        return ["ncountered"]  # Calcite's parser: the hint stops parsing at a token
    if flink_error.startswith("Unable to create a source"):
        return ["json.ignore-parse-errors", "tr*/ue"]  # the hint's bad value, as in the DDL
    if flink_error.startswith("Invalid STATE_TTL hint value:"):
        return ["Invalid STATE_TTL hint value", "bogus"]  # our duration parser's own words
    return [flink_error.replace(": \n", ": ")]  # Flink's unmatched hint names go on a line of their own


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    path = tmp_path_factory.mktemp("hints") / "t.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in FLINK["rows"]))
    with StreamEnvironment() as e:
        e.execute_sql(f"CREATE TABLE t (id INT, v STRING) WITH ('connector' = 'filesystem', "
                      f"'path' = '{path}', 'format' = 'json')")
        yield e


@pytest.mark.parametrize("case", FLINK["cases"], ids=[c["sql"][15:60] for c in FLINK["cases"]])
def test_as_flink(env, case):
    if "rows" in case:
        got = sorted([r[0]] for _, r in env.execute_sql(case["sql"]).collect())
        assert got == case["rows"]
        return
    with pytest.raises(StreamSQLError) as e:
        env.execute_sql(case["sql"]).collect()
    for word in _words(case["error"]):
        assert word in str(e.value)
    assert "Traceback" not in str(e.value)
