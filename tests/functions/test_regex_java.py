"""The REGEXP family over patterns from a column, in Java's syntax, against Flink 2.3's answers.

``flink_regex_java.json`` is what Flink gave for each row ``(s, p)`` of a ``VALUES`` table
(recorded by ``scripts/flink_regex_java.py``, never by hand): possessive quantifiers, atomic
groups, look-around, ``\\p{..}`` properties, ``\\Q..\\E``, inline flags mid-pattern, nested
classes, Java's ``.`` / ``$`` / ``\\R`` / ``\\Z``, and patterns Java refuses. The same table runs
through a StreamSQL job here, one job per call.
"""

from __future__ import annotations

import json
import runpy
from pathlib import Path

import pytest

from streamsql import StreamEnvironment

ROOT = Path(__file__).resolve().parents[2]
FLINK = json.loads((Path(__file__).parent / "flink_regex_java.json").read_text())
_RECORDER = runpy.run_path(str(ROOT / "scripts" / "flink_regex_java.py"))
VALUES, SQL_TEXT = _RECORDER["values"], _RECORDER["sql_text"]


@pytest.mark.parametrize("call", list(FLINK["answers"]))
def test_a_column_pattern_in_java_syntax_answers_as_flink(call):
    rows = [tuple(r) for r in FLINK["rows"]]
    env = StreamEnvironment({})
    got = {r[0]: r[1] for _, r in env.execute_sql(f"SELECT n, {call}" + VALUES(rows)).collect()}
    ours = [got[n] for n in range(len(rows))]
    differ = [(rows[n], flink, ours[n]) for n, flink in enumerate(FLINK["answers"][call]) if ours[n] != flink]
    assert not differ


@pytest.mark.parametrize("call", list(FLINK["answers"]))
def test_a_literal_pattern_in_java_syntax_answers_as_flink_or_is_refused_where_java_refuses_it(call):
    """The same patterns as literals: RE2 where it reads them as Java, else Java's engine row by row.

    Every one is answered, those Java refuses too (REGEXP false, the others NULL, as Flink).
    """
    env = StreamEnvironment({})
    columns, expected = [], []
    for n, ((s, p), flink) in enumerate(zip(FLINK["rows"], FLINK["answers"][call])):
        expr = call.replace("(s, p", f"({SQL_TEXT(s)}, {_literal(p)}")
        columns.append(f"{expr} AS c{n}")
        expected.append(flink)
    (_, row), = list(env.execute_sql("SELECT " + ", ".join(columns)).collect())
    ours = [list(v) if isinstance(v, tuple) else v for v in row]
    assert [(c, o, f) for c, o, f in zip(columns, ours, expected) if o != f] == []


def _literal(text: str) -> str:
    """A string literal of ``text`` (a control character as a CHR(n) piece: then an expression)."""
    return "'" + text.replace("'", "''") + "'" if text.isprintable() else SQL_TEXT(text)
