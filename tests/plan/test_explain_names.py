"""EXPLAIN names an aggregate's keys and results as Flink 2.3 does (``k``, ``EXPR$1``, ``$f2``, ``w0$o0``).

Also a ranking's number (``w0$o0``) and a MATCH_RECOGNIZE's partition columns and measures.

``explain_names_flink.json`` is Flink's EXPLAIN of each statement, recorded by
``scripts/flink_explain_names.py``. Our plan showed the planner's internal columns (``__k0``,
``__agg0``, ``__a1``); now, per statement, the aggregate groups by Flink's names, its calls carry
Flink's names, the Calc under it outputs Flink's names, and no internal name is left. (How an
expression is printed, ``SUM(v * 2)`` for Flink's ``SUM($f1)``, is not compared.) Calls of one
argument read one column (``AVG(v), MAX(v)``: ``Calc(select=[k, v])``); under a grouping set's
Expand a row has as many columns as Flink's (a call of a key reads a column apart: ``k AS k_0``).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.plan.conftest import oracle_environment

ORACLE = json.loads((Path(__file__).parent / "explain_names_flink.json").read_text())
#: Flink's aggregate operator → ours.
AGGREGATES = {"GroupAggregate": "GroupAggregate", "GlobalWindowAggregate": "WindowAggregate",
              "OverAggregate": "OverAggregate"}
_LINE = re.compile(r"^[ +|-]*(\w+)\((.*)\)\S*$")


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    yield from oracle_environment(tmp_path_factory, ORACLE["ddl"])


def _items(text: str) -> list[str]:
    """The top-level comma-separated items of ``text``."""
    out, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        depth += ch in "([" and 1 or ch in ")]" and -1 or 0
        if ch == "," and depth == 0:
            out.append(text[start:i].strip())
            start = i + 1
    return [*out, text[start:].strip()] if text.strip() else out


def _attr(args: str, name: str) -> list[str] | None:
    """The items of attribute ``name=[...]`` of an operator's arguments (None when absent)."""
    for item in _items(args):
        if item.startswith(name + "=["):
            return _items(item[len(name) + 2:-1])
    return None


def _names(items: list[str]) -> list[str]:
    """The output names of select items: after ``AS``, else the item itself."""
    return [i.rpartition(" AS ")[2] for i in items]


def _operators(plan: str) -> list[tuple[str, str]]:
    """``(operator, arguments)`` of each line of the plan's last section, top down."""
    section = plan.split("== Optimized Execution Plan ==")[-1]
    out = []
    for line in section.splitlines():
        m = _LINE.match(line)
        if m:
            out.append((m.group(1), m.group(2)))
    return out


def _aggregate_and_input(ops: list[tuple[str, str]], kinds) -> tuple[tuple[str, str], tuple[str, str] | None]:
    """The aggregate operator and the first Calc under it before the watermark assigner."""
    at = next(i for i, (op, _) in enumerate(ops) if op in kinds)
    below = None
    for op, args in ops[at + 1:]:
        if op == "Calc":
            below = (op, args)
            break
        if op not in ("Exchange", "LocalWindowAggregate"):
            break
    return ops[at], below


def _calls(args: str) -> list[str]:
    """The names of an aggregate's calls: its select items with ``AS``."""
    return [i.rpartition(" AS ")[2] for i in _attr(args, "select") if " AS " in i]


def _flink_ops(statement: str) -> list[tuple[str, str]]:
    return _operators(ORACLE["plans"][statement])


AGGREGATE_STATEMENTS = [q for q in ORACLE["plans"] if any(op in AGGREGATES for op, _ in _flink_ops(q))]
OTHER_STATEMENTS = [q for q in ORACLE["plans"] if q not in AGGREGATE_STATEMENTS]


@pytest.mark.parametrize("statement", OTHER_STATEMENTS)
def test_ranking_and_match_show_flinks_names(statement, env):
    """A Rank's number is Flink's ``w0$o0``; a Match partitions by Flink's names, measures named."""
    ours_text = env.execute_sql(statement).message
    assert "__" not in ours_text, ours_text
    flink = _flink_ops(statement)
    for name in re.findall(r"w\d+\$o\d+", ORACLE["plans"][statement]):
        assert name in ours_text, ours_text
    for op, args in flink:
        if op == "Match":
            ours = dict(_operators(ours_text))["Match"]
            assert _attr(ours, "partitionBy") == _attr(args, "partitionBy"), ours_text
            assert _attr(ours, "measures") == _names(_attr(args, "measures")), ours_text


@pytest.mark.parametrize("statement", AGGREGATE_STATEMENTS)
def test_explain_shows_flinks_names(statement, env):
    ours_text = env.execute_sql(statement).message
    assert "__" not in ours_text, ours_text
    (f_op, f_args), f_calc = _aggregate_and_input(_operators(ORACLE["plans"][statement]), AGGREGATES)
    (_, o_args), o_calc = _aggregate_and_input(_operators(ours_text), AGGREGATES.values())
    if f_op == "OverAggregate":
        assert _attr(o_args, "partitionBy") == _attr(f_args, "partitionBy"), ours_text
    else:
        assert _attr(o_args, "groupBy") == _attr(f_args, "groupBy"), ours_text
    if f_op == "GlobalWindowAggregate":  # Flink's also lists the window's start and end
        assert set(_calls(o_args)) <= set(_calls(f_args)), ours_text
    else:
        assert _calls(o_args) == _calls(f_args), ours_text
    if f_calc is not None:  # the Calc computing the keys and arguments
        assert _names(_attr(o_calc[1], "select")) == _names(_attr(f_calc[1], "select")), ours_text
    expand = re.search(r"Expand\(projects=\[\{([^}]*)\}", ORACLE["plans"][statement])
    if expand is not None:  # a grouping set's row: keys, $e, one column per distinct argument (a key's apart)
        ours = next(args for op, args in _operators(ours_text) if op == "Calc" and " AS $e" in args)
        assert len(_attr(ours, "select")) == len(expand.group(1).split(", ")), ours_text


DISTINCT_STATEMENTS = [q for q in AGGREGATE_STATEMENTS if "DISTINCT" in q]


@pytest.mark.parametrize("statement", DISTINCT_STATEMENTS)
def test_explain_shows_distinct_where_flink_does(statement, env):
    """``MAX(DISTINCT v)`` is ``MAX(v)`` in Flink's plan (Calcite drops DISTINCT of MAX and MIN);
    ``COUNT(DISTINCT v)`` keeps it. Each call's text, before its ``AS`` name, is Flink's."""
    ours_text = env.execute_sql(statement).message
    (_, f_args), _ = _aggregate_and_input(_operators(ORACLE["plans"][statement]), AGGREGATES)
    (_, o_args), _ = _aggregate_and_input(_operators(ours_text), AGGREGATES.values())

    def calls(args: str) -> list[str]:
        return [i.rpartition(" AS ")[0] for i in _attr(args, "select") if " AS " in i]

    assert calls(o_args) == calls(f_args), ours_text
