"""PRINTF's vectorized formats (``%s``, ``%d``, ``%b`` bare) answer exactly as its row-wise path.

The row-wise path is Java's Formatter step by step (:mod:`streamsql.functions.scalars.java_format`,
checked against Flink 2.3 by the conformance and difffuzz cases); the common formats are written as
one DuckDB concatenation instead (``formatting.vectorized``). Both run here over the same rows
(NULLs, negatives, extremes, unicode, empty strings) and must give the same text for every row.
"""

from __future__ import annotations

import json

import pytest

from streamsql import StreamEnvironment
from streamsql.functions.scalars import formatting, java_format

ROWS = [
    {"id": 1, "i": 42, "b": 9223372036854775807, "t": 7, "s": "hello", "d": 1.5, "m": "12.50", "f": True,
     "dt": "2024-02-29"},
    {"id": 2, "i": -2147483648, "b": -9223372036854775808, "t": -128, "s": "", "d": -0.0, "m": "-0.01",
     "f": False, "dt": "1969-07-20"},
    {"id": 3, "i": None, "b": None, "t": None, "s": None, "d": None, "m": None, "f": None, "dt": None},
    {"id": 4, "i": 0, "b": 0, "t": 0, "s": "日本語😀 %d", "d": 1e300, "m": "0.00", "f": True,
     "dt": "1970-01-01"},
]
FORMATS = [
    ("'%s'", "s"), ("'%s|%s|%s'", "i, b, s"), ("'%d and %d'", "i, b"), ("'%d'", "t"),
    ("'%s %s %s %s'", "d, m, f, dt"), ("'%b %b %b'", "f, s, i"), ("'100%% %s%n'", "s"),
    ("'%2$s-%1$s'", "s, i"), ("'%s %<s'", "i"), ("'%d'", "dt"), ("'no args'", ""), ("''", ""),
    ("'%s'", "CAST(NULL AS STRING)"), ("'%s=%d;'", "s, CAST(i AS SMALLINT)"),
]


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("printf")
    (tmp / "p.json").write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    config = {"state.dir": str(tmp / "state"), "execution.checkpointing.dir": str(tmp / "cp")}
    with StreamEnvironment(config) as e:
        e.execute_sql("CREATE TABLE p (id INT, i INT, b BIGINT, t TINYINT, s STRING, d DOUBLE, "
                      "m DECIMAL(10, 2), f BOOLEAN, dt DATE) WITH ('connector' = 'filesystem', "
                      f"'path' = '{tmp / 'p.json'}', 'format' = 'json')")
        yield e


def _answers(env, monkeypatch, call: str) -> tuple[list, int]:
    """The rows of ``SELECT id, call`` and how many rows the row-wise path formatted."""
    rowwise = []
    monkeypatch.setattr(java_format, "format_row",
                        lambda *a, f=java_format.format_row: rowwise.append(1) or f(*a))
    rows = sorted(tuple(row) for _, row in env.execute_sql(f"SELECT id, {call} FROM p").collect(timeout=60))
    return rows, len(rowwise)


@pytest.mark.parametrize(("fmt", "args"), FORMATS)
def test_vectorized_equals_rowwise(env, monkeypatch, fmt, args):
    call = f"PRINTF({fmt}{', ' + args if args else ''})"
    fast, formatted = _answers(env, monkeypatch, call)
    assert formatted == 0  # the vectorized form ran
    monkeypatch.setattr(formatting, "vectorized", lambda pieces, rendered: None)
    slow, formatted = _answers(env, monkeypatch, call)
    assert formatted > 0  # and the row-wise one here
    assert fast == slow


@pytest.mark.parametrize("call", ["PRINTF('%5s', s)", "PRINTF('%S', s)", "PRINTF('%d', d)", "PRINTF('%x', i)",
                                  "PRINTF('%.1f', d)"])
def test_other_formats_stay_rowwise(env, monkeypatch, call):
    """Widths, precisions, upper-case and numeric conversions are Java's own rules: row by row."""
    assert _answers(env, monkeypatch, call)[1] > 0
