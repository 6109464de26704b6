"""Nexmark q0–q22 on StreamSQL give Apache Flink 2.3's final tables on the same bounded input.

``benchmarks/nexmark/expected.json`` was written by Flink (``scripts/nexmark_flink.py``): the
``nexmark`` connector's events (``results.COMPARE``) as a JSON-lines file, read by Flink through
Nexmark's DDL and views, each query into a print sink whose changelog is folded into the final
table (for the queries of ``results.UPSERT_KEYS``, whose Flink plan sends an upsert changelog,
the last row per key). Here the same query runs on StreamSQL over the ``nexmark`` connector
itself (so the generator → JSON → Flink path and our connector must agree too) into a print
sink, folded and summarized the same way. A query Flink rejects must be rejected here too, at a
position. The processing-time query q12's result depends on the wall clock: it must run, and
its rows must be 10-second windows, each (bidder, window) once, counting no more bids than the
input has (a bounded input's windows still open at its end are dropped, as Flink 2.3 does: a run
shorter than 10 s fires at most the one window whose end it passed)."""

from __future__ import annotations

import json
import re

import pytest

from benchmarks.nexmark import compare, results, sql
from streamsql.core.errors import StreamSQLError

EXPECTED = json.loads((sql.HERE / "expected.json").read_text())


def _run(query: str, tmp_path) -> tuple[list[str], list[list[str | None]]]:
    """The query's columns and final table on StreamSQL (print sink captured and folded)."""
    c = results.COMPARE
    return compare.run(query, c["events"], c["rate"], c["base_time_ms"], tmp_path)


def _flink_words(error: str) -> str:
    """The first sentence of Flink's error, without its exception class: what our error must say too.

    ``org.apache.calcite.sql.validate.SqlValidatorException: Column 'rownum' not found in any
    table`` -> ``Column 'rownum' not found in any table``.
    """
    text = re.sub(r"^([\w.$]+(Exception|Error): )+", "", error)
    return re.split(r"\.( |$)", text, maxsplit=1)[0]


def _check_processing_time_windows(rows: list[list[str | None]]) -> None:
    """q12's invariants: aligned 10 s windows, one row per (bidder, window), at most every bid."""
    totals = results.window_totals(rows)
    assert totals["violations"] == []
    assert all(int(r[1]) > 0 for r in rows)
    assert totals["bids"] <= results.COMPARE["events"]


def test_expectations_cover_every_query():
    assert list(EXPECTED["queries"]) == sql.QUERIES
    assert EXPECTED["input"] == results.COMPARE


@pytest.mark.parametrize("query", sql.QUERIES)
def test_query_gives_flinks_final_table(query, tmp_path):
    expected = EXPECTED["queries"][query]
    if "flink_error" in expected:
        with pytest.raises(StreamSQLError) as e:
            _run(query, tmp_path)
        assert "line " in str(e.value) and "^" in str(e.value), f"not positioned: {e.value}"
        assert _flink_words(expected["flink_error"]) in str(e.value)
        return
    if expected.get("proctime"):  # q12: windows on the wall clock, so its invariants only
        columns, rows = _run(query, tmp_path)
        assert columns == expected["columns"]
        _check_processing_time_windows(rows)
        return
    columns, rows = _run(query, tmp_path)
    if query in sql.FILE_SINK_QUERIES:  # q10: its partitioned filesystem table, success files and all
        got = compare.file_result(query, columns, tmp_path)
    else:
        got = results.summary(columns, rows)
    assert got == expected
