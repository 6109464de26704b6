"""The registry's fast paths over columns of a multi-row batch, where the choice is made.

REGEXP_EXTRACT/REGEXP_SUBSTR take one regex pass when the pattern's group never matches ''
(``ScalarFunction.fast``); UPPER/LOWER map ASCII rows in DuckDB and the other rows of the same
batch with Java's full case mapping. The expected values are Flink's (flink_expected.json,
difffuzz_expected.json) or Python's ``re`` for REGEXP_EXTRACT (Java's semantics for these ASCII
patterns: no ``$``, no ``\\s``, no ``.`` against line terminators).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from streamsql import StreamEnvironment
from streamsql.functions.scalars.regex_shape import group_never_empty

EXPECTED = json.loads((Path(__file__).parent / "flink_expected.json").read_text())["cases"]

STRINGS = ["https://x/y?channel_id=42&a=1", "channel_id=&channel_id=7", "no id here", "", "k=", "k=12",
           "xaby", "abab", "ac", "abc", "b", "aXb", "a1b22", None]
# (pattern, group, takes the fast path)
PATTERNS = [("channel_id=([0-9]+)", 1, True), ("(a|b)+", 1, True), ("x(?:a(b))", 1, True), ("a(.)b", 1, True),
            ("[0-9]+", 0, True), ("(a)|b", 1, True), ("a(b)?c", 1, True), ("k=([0-9]*)", 1, False),
            ("k=([0-9]+)?", 1, True), ("b*", 0, False), ("(a)(x*)", 2, False), ("(a)(x*)", 1, True),
            (r"\pL(a)", 1, False)]


def _run(tmp_path, rows: list[str | None], select: str) -> list[tuple]:
    (tmp_path / "t.json").write_text("".join(json.dumps({"s": r}) + "\n" for r in rows))
    with StreamEnvironment({"state.dir": str(tmp_path / "state"),
                            "execution.checkpointing.dir": str(tmp_path / "cp")}) as env:
        env.execute_sql(f"CREATE TABLE t (s STRING) WITH ('connector' = 'filesystem', "
                        f"'path' = '{tmp_path}/t.json', 'format' = 'json')")
        return [row for _, row in env.execute_sql(f"SELECT s, {select} FROM t").collect(timeout=60)]


def _python_extract(s: str | None, pattern: str, group: int) -> str | None:
    m = None if s is None else re.search(pattern, s)
    return None if m is None else m.group(group)


@pytest.mark.parametrize(("pattern", "group", "fast"), PATTERNS)
def test_which_groups_take_the_one_pass_form(pattern, group, fast):
    assert group_never_empty(pattern, group) is fast


def test_regexp_extract_and_substr_over_a_column(tmp_path):
    checked = [(p, g) for p, g, _ in PATTERNS if "\\p" not in p]  # Python's re has no \pL
    select = ", ".join(f"REGEXP_EXTRACT(s, '{p}', {g})" for p, g in checked)
    select += ", " + ", ".join(f"REGEXP_SUBSTR(s, '{p}')" for p, g in checked)
    rows = _run(tmp_path, STRINGS, select)
    assert len(rows) == len(STRINGS)
    for s, *got in rows:
        want = [_python_extract(s, p, g) for p, g in checked] + [_python_extract(s, p, 0) for p, _ in checked]
        assert got == want, s


def _case_inputs(fn: str) -> dict[str, str]:
    """Input → Flink's value of the ``fn(CAST('...' AS STRING))`` conformance cases."""
    found = {}
    for r in EXPECTED:
        m = re.fullmatch(fn + r"\(CAST\('(.*)' AS STRING\)\)", r["expr"])
        if m and "zone" not in r:
            found[m.group(1)] = r["value"]
    return found


@pytest.mark.parametrize("fn", ["UPPER", "LOWER"])
def test_case_mapping_of_ascii_and_other_rows_in_one_batch(tmp_path, fn):
    cases = _case_inputs(fn)
    assert len(cases) >= 5 and any(k.isascii() for k in cases) and any(not k.isascii() for k in cases)
    inputs = [*cases, None]
    got = dict(_run(tmp_path, inputs, f"{fn}(s)"))
    assert got == {**cases, None: None}


def _flink_replace_all(s: str | None, pattern: str) -> str | None:
    """Flink 2.3's REGEXP_REPLACE(s, pattern, '-'), recorded in the differential fuzzer's fixture
    (difffuzz_regressions.txt; Python's re.sub differs: 'abc' with 'a?|b' is '----c-' there)."""
    if s is None:
        return None
    expr = f"REGEXP_REPLACE('{s}', '{pattern}', '-')"
    return next(c["rows"]["1"] for c in DIFFFUZZ if c["expr"] == expr)


DIFFFUZZ = json.loads((Path(__file__).parent / "difffuzz_expected.json").read_text(encoding="utf-8"))["cases"]


@pytest.mark.parametrize("pattern", ["a*", "x*", "b*", "(ab)*", "a?|b"])
def test_regexp_replace_of_an_empty_matching_pattern_over_a_column(tmp_path, pattern):
    strings = ["aaa", "abc", "", "xyz", "baab", "abab", None]
    rows = _run(tmp_path, strings, f"REGEXP_REPLACE(s, '{pattern}', '-')")
    assert len(rows) == len(strings)
    assert all(got == _flink_replace_all(s, pattern) for s, got in rows), rows
