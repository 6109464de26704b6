"""The names EXPLAIN shows for the planner's internal columns (``__k0``, ``__agg0``...), as Flink's.

An aggregate's plan computes its keys and arguments into internal columns (``__k<i>``,
``__a<i>``, ``__ts``) and produces ``__agg<j>`` (and a window's ``__ws``/``__we``/``__wt``). The
operators read those names; EXPLAIN shows Flink's instead (display only: no column is renamed):

- a key or argument that is an input column unchanged: that column's name (Flink's Calc passes
  it through: ``Calc(select=[k, v])``);
- another key: the name of the SELECT item that is that expression (``UPPER(k) AS EXPR$0``), else
  ``$f<i>``, its position in the Calc's output; another argument: ``$f<i>`` likewise;
- an aggregate call: the name of the SELECT item that is that call (its alias, or ``EXPR$<n>``
  for the n-th item), else ``$f<i>``, its position in the aggregate's output (Flink's
  ``MAX(v) AS $f2`` under ``MAX(v) + 1``); an OVER aggregate's: ``w0$o<j>``;
- a window's start, end and time: ``window_start``, ``window_end``, ``window_time``;
- a ranking's number ``w0$o0``, its hidden PARTITION BY / ORDER BY columns as keys are; a
  MATCH_RECOGNIZE's partition columns their names, a measure that is one value its name.

Each node keeps the names of its own output columns in :attr:`PlanNode.display`;
:func:`rename` rewrites a node's EXPLAIN line with its own and its inputs' names. These names
come from Flink 2.3's EXPLAIN of the same statements (``tests/plan/test_explain_names.py``).
"""

from __future__ import annotations

import re

from sqlglot import exp

from streamsql.plan.expressions import output_name
from streamsql.plan.nodes import CalcNode, PlanNode

_IDENT = re.compile(r"[A-Za-z_][\w$]*")
_INTERNAL = re.compile(r"(?<![\w$])__\w+")
#: ``x AS x`` in a select list (after a rename): shown as ``x``, as Flink does.
_SAME_NAME = re.compile(r"(^|[\[ ])([\w$]+) AS \2(?=[,\]])")
WINDOW_NAMES = {"__ws": "window_start", "__we": "window_end", "__wt": "window_time"}


def _passed_through(calc: PlanNode) -> dict[str, str]:
    """The internal output columns of ``calc`` that are an input column unchanged: their names."""
    out: dict[str, str] = {}
    if isinstance(calc, CalcNode):
        for item in calc.select_sql:
            expr, sep, name = item.rpartition(" AS ")
            if sep and name.startswith("__") and _IDENT.fullmatch(expr):
                out[name] = expr
    return out


def select_names(items: list[exp.Expression], resolved: list[exp.Expression]) -> dict[str, str]:
    """SQL of each SELECT item (aliases removed, columns resolved) → the name Flink gives it."""
    out: dict[str, str] = {}
    for n, (item, r) in enumerate(zip(items, resolved)):
        inner = r.unalias() if isinstance(r, exp.Alias) else r
        out.setdefault(inner.sql(), output_name(item, n))
    return out


def name_aggregate(pre: PlanNode, agg: PlanNode, keys: list[exp.Expression], calls: list[exp.Expression],
                   selected: dict[str, str], over: bool = False) -> None:
    """Set the display names of an aggregate's input Calc ``pre`` and of the aggregate ``agg``.

    Args:
        pre: the Calc computing the keys (``__k<i>``) and arguments (``__a<i>``).
        agg: the aggregate; its output keys come first, its calls are ``__agg<j>``.
        keys: the grouping (or PARTITION BY) expressions, resolved.
        calls: the aggregate calls, in the order of ``__agg<j>``.
        selected: :func:`select_names` of the query's SELECT list.
        over: an OVER aggregate (calls named ``w0$o<j>``).
    """
    plain = _passed_through(pre)
    pre_names = {}
    for pos, name in enumerate(pre.schema.names):
        if not name.startswith("__"):
            continue
        if name in plain:
            pre_names[name] = plain[name]
        elif name.startswith("__k") and name[3:].isdigit() and int(name[3:]) < len(keys):
            pre_names[name] = selected.get(keys[int(name[3:])].sql(), f"$f{pos}")
        else:
            pre_names[name] = f"$f{pos}"
    pre.display = pre_names
    names = list(agg.schema.names)
    first_call = len(names) - len(calls)
    shown = {n: pre_names[n] for n in names if n in pre_names}
    for n in names:
        if n in WINDOW_NAMES:
            shown[n] = WINDOW_NAMES[n]
    for j, call in enumerate(calls):
        shown[names[first_call + j]] = f"w0$o{j}" if over else selected.get(call.sql(), f"$f{first_call + j}")
    agg.display = shown


def name_hidden(pre: PlanNode, fixed: dict[str, str], *also: PlanNode) -> None:
    """Display names of the internal columns ``pre`` outputs, given to ``also`` (same columns) too.

    ``fixed`` names some (a ranking's number ``w0$o0``); any other is the input column it passes
    through, else ``$<i>``, its position (Flink's Calc under a Rank: ``UPPER(k) AS $3``).
    """
    plain = _passed_through(pre)
    names = {n: fixed.get(n) or plain.get(n) or f"${pos}"
             for pos, n in enumerate(pre.schema.names) if n.startswith("__")}
    for node in (pre, *also):
        node.display = {**node.display, **names}


def rename(text: str, node: PlanNode) -> str:
    """``node``'s EXPLAIN line with its internal column names replaced by their display names."""
    names: dict[str, str] = {}
    for i in node.inputs:
        names.update(i.display)
    names.update(node.display)
    if not names:
        return text
    text = _INTERNAL.sub(lambda m: names.get(m.group(0), m.group(0)), text)
    return _SAME_NAME.sub(r"\1\2", text)
