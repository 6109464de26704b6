"""Sub-plan reuse: equal parts of a statement's plan computed once, as Flink's ``SubplanReuser``.

Flink's planner (``table.optimizer.reuse-sub-plan-enabled`` and ``reuse-source-enabled``, both
true by default) replaces every node whose digest equals an earlier one's by that node, so a
table read twice (a self-join, or two views over one table: Nexmark's ``person`` / ``auction`` /
``bid``) is scanned, given its computed columns and watermarked once, and its rows go to both
readers; equal aggregates under both sides of a join (Nexmark q5's two ``HOP`` counts) run once.
EXPLAIN marks the shared node ``(reuse_id=[n])`` where it is printed first and
``Reused(reference_id=[n])`` where it is read again, as Flink's plan dump.

:func:`reuse_subplans` runs on a planned statement (after :mod:`~streamsql.plan.calc_merge`, before
:mod:`~streamsql.plan.update_kinds`, so a shared updating node keeps -U rows if any of its readers
needs them), inputs first: a node is replaced by an earlier one of the same type, with the same
inputs (already shared) and equal fields (every dataclass field but ``inputs``, ``id`` and
``update_before``, compared as plain values). Shared only where sharing cannot change a result:

- node types :data:`REUSABLE`: table scans (not ``VALUES``), watermark assigners, Calcs, window
  table functions, window aggregates and GROUP BY aggregates;
- no non-deterministic expression (``RAND()``, ``UUID()``, a non-deterministic Python function:
  one value per row for both readers would differ from two), no ``PROCTIME()`` attribute or
  processing-time window (each operator stamps its own time);
- every field a plain value (a field holding an object with no value form, e.g. a Python
  aggregate function, keeps its node apart).

Each shared node is one operator (one task, one state namespace): operator ids are assigned after
this pass, so a plan differs from the one without reuse, and a checkpoint taken before reuse is
refused by the state signatures (:mod:`streamsql.plan.state_signature`) rather than misread.
"""

from __future__ import annotations

import dataclasses
import enum
from typing import Any

import pyarrow as pa

from streamsql.core.catalog import TableDef
from streamsql.core.config import Config
from streamsql.core.types import SqlType
from streamsql.core.values import parse_bool
from streamsql.plan.nodes import CalcNode, GroupAggNode, PlanNode, ScanNode, WatermarkAssignerNode, walk
from streamsql.plan.windows import WindowAggNode, WindowTableFunctionNode

#: Node types that can be shared (exact types: a subclass, e.g. ``ValuesNode``, is never shared).
REUSABLE = (ScanNode, WatermarkAssignerNode, CalcNode, WindowTableFunctionNode, WindowAggNode, GroupAggNode)
SUB_PLAN_KEY = "table.optimizer.reuse-sub-plan-enabled"
SOURCE_KEY = "table.optimizer.reuse-source-enabled"
#: Fields that do not make a node compute something else.
_IGNORED = frozenset({"inputs", "id", "update_before", "display", "unpruned"})


class _NotShared(Exception):
    """A field with no plain value form, or a non-deterministic expression: the node is kept apart."""


def reuse_subplans(roots: list[PlanNode], config: Config, by_update_kind: bool = False) -> None:
    """Replace, in place, every reusable node equal to an earlier one by that one (module docstring).

    Off with ``'table.optimizer.reuse-sub-plan-enabled'`` = false; scans (and so whatever reads
    them) are kept apart with ``'table.optimizer.reuse-source-enabled'`` = false, as in Flink.
    ``by_update_kind``: equal nodes are shared only when they also emit the same update kinds
    (``update_before``): the pass over a statement set's INSERTs, each planned (and its -U rows
    eliminated) on its own, so no reader gets -U rows its plan did not expect.

    Raises:
        ConfigError: either key set to something other than a boolean.
    """
    if not parse_bool(config.get(SUB_PLAN_KEY), SUB_PLAN_KEY):  # on by default (Config.boolean: off)
        return
    sources = parse_bool(config.get(SOURCE_KEY), SOURCE_KEY)
    first: dict[tuple, PlanNode] = {}
    replaced: dict[int, PlanNode] = {}
    for node in walk(roots):  # inputs first: their replacements are known
        if any(id(i) in replaced for i in node.inputs):
            node.inputs = [replaced.get(id(i), i) for i in node.inputs]
        key = _digest(node) if sources or type(node) is not ScanNode else None
        if key is None:
            continue
        if by_update_kind:
            key = (key, node.update_before)
        kept = first.setdefault(key, node)
        if kept is not node:
            replaced[id(node)] = kept


def shared_nodes(roots: list[PlanNode]) -> set[int]:
    """The ids (``id()``) of the nodes of ``roots`` read by more than one node."""
    readers: dict[int, int] = {}
    for n in walk(roots):
        for i in n.inputs:
            readers[id(i)] = readers.get(id(i), 0) + 1
    return {k for k, c in readers.items() if c > 1}


def _digest(node: PlanNode) -> tuple | None:
    """What ``node`` computes, as a hashable value; None when it must not be shared."""
    if type(node) not in REUSABLE or getattr(node, "proctime", None):
        return None
    spec = getattr(node, "spec", None)
    if spec is not None and getattr(spec, "proctime", False):
        return None
    try:
        fields = tuple((f.name, _plain(getattr(node, f.name))) for f in dataclasses.fields(node)
                       if f.name not in _IGNORED)
    except _NotShared:
        return None
    return (type(node).__name__, tuple(id(i) for i in node.inputs), fields)


def _plain(value: Any) -> Any:
    """``value`` as a hashable plain value.

    Raises:
        _NotShared: an object with no value form, or a non-deterministic expression.
    """
    if isinstance(value, str):
        if not getattr(value, "deterministic", True):
            raise _NotShared
        return str(value)
    if value is None or isinstance(value, (bool, int, float)):
        return value
    if isinstance(value, enum.Enum):
        return value.name
    if isinstance(value, (SqlType, pa.Schema, pa.DataType)):
        return (type(value).__name__, str(value))
    if isinstance(value, TableDef):  # a catalog table: that one (the catalog holds one object per table;
        # ``r`` and ``db2.r`` of the same DDL text are two tables, as Flink's scan digests name their
        # catalog and database), as declared, with the options it is read with
        return ("TableDef", id(value), value.name, value.sql, _plain(value.options))
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return (type(value).__name__,
                tuple((f.name, _plain(getattr(value, f.name))) for f in dataclasses.fields(value)))
    if isinstance(value, dict):
        return ("dict", tuple(sorted((str(k), _plain(v)) for k, v in value.items())))
    if isinstance(value, (set, frozenset)):
        return ("set", tuple(sorted((_plain(v) for v in value), key=repr)))
    if isinstance(value, (list, tuple)):
        return tuple(_plain(v) for v in value)
    raise _NotShared
