"""EXPLAIN's section names and ``EXPLAIN CHANGELOG_MODE`` against Flink 2.3's own EXPLAIN.

``explain_changelog_flink.json`` is Flink's output per statement, recorded by
``scripts/flink_explain_changelog.py``. Flink prints three sections (``== Abstract Syntax Tree
==``, ``== Optimized Physical Plan ==``, ``== Optimized Execution Plan ==``); our plan tree is
printed under the name of the one it resembles, the physical plan (it was ``== Physical Plan
==``, a name Flink has not), and the sections of our own keep names Flink does not use. With
CHANGELOG_MODE each operator of the tree ends with ``changelogMode=[...]``: the row kinds it
emits, ``NONE`` for a sink. Compared per operator, top down: Flink's Exchanges and Calcs (ours
merge or add Calcs: a sink's implicit casts) are left out, and its two-phase window aggregate
counts as one.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.plan.conftest import oracle_environment

ORACLE = json.loads((Path(__file__).parent / "explain_changelog_flink.json").read_text())
_LINE = re.compile(r"^[ :+|-]*(\w+)\(.*changelogMode=\[([A-Z,]+)\]\)")
#: Flink's operator names → ours, where they differ; None: not an operator of ours.
_OURS = {"GlobalWindowAggregate": "WindowAggregate", "LocalWindowAggregate": None, "Exchange": None,
         "Calc": None, "Deduplicate": "Rank"}


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    yield from oracle_environment(tmp_path_factory, ORACLE["ddl"])


def _sections(text: str) -> list[str]:
    return re.findall(r"^== (.+) ==$", text, re.M)


def _modes(text: str) -> list[tuple[str, str]]:
    """``(operator, changelogMode)`` of the physical plan's operators, top down, in our names."""
    section = text.split("== Optimized Physical Plan ==")[1]
    out = []
    for line in section.splitlines():
        if line.startswith("== "):
            break
        m = _LINE.match(line)
        if m:
            name = _OURS.get(m.group(1), m.group(1))
            if name is not None:
                out.append((name, m.group(2)))
    return out


@pytest.mark.parametrize("statement", list(ORACLE["plans"]))
def test_changelog_mode_is_flinks(env, statement):
    flink = ORACLE["plans"][statement]
    ours = env.execute_sql(statement).message
    assert _sections(ours)[0] == "Optimized Physical Plan" and "Optimized Physical Plan" in _sections(flink)
    expected = _modes(flink)
    assert expected, flink
    assert _modes(ours) == expected, ours


def test_without_changelog_mode_no_modes(env):
    text = env.execute_sql("EXPLAIN INSERT INTO p_kc SELECT k, COUNT(*) FROM src GROUP BY k").message
    assert "changelogMode" not in text
    assert _sections(text) == ["Optimized Physical Plan", "Delivery guarantees"]
