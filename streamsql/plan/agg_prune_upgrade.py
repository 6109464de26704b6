"""Checkpoints of a GROUP BY that computed calls nobody reads restore into the pruned aggregate.

Up to f3e00a5a StreamSQL computed every call of a GROUP BY; since :mod:`streamsql.plan.agg_prune`
(as Flink's ``PruneAggregateCallRule``) the calls the Calc above does not read are dropped. That
changes the aggregate's state signature (fewer calls, fewer output columns, input columns only a
dropped call read) and the origins of the columns every operator above it reads
(``group-agg-2.5`` is ``group-agg-2.1`` now). The state of the kept calls is the same: so a
restore accepts a checkpoint whose signatures are those of the plan *before pruning*, and drops
the pruned calls' accumulators (:mod:`streamsql.runtime.operators.group_agg_upgrade`); the kept
calls are found by their index among the calls as planned (``UnprunedCalls.kept``), never by
position among the remaining ones.

:func:`add_before_pruning` computes the plan's signatures with every pruned aggregate put back as
planned and adds them to the current signatures that differ, as ``before_pruning``:

- ``signature``: the signature the operator had before pruning (what f3e00a5a recorded);
- ``kept``: on a pruned aggregate, the indices of its remaining calls among its planned ones
  (None on an operator above one, whose state does not change);
- ``refused``: why such a checkpoint cannot be restored after all, or None. One case: the dropped
  calls were the only ones without a fixed-width form (a LISTAGG, a MAX of strings...), so the
  remaining calls now keep fixed-width records where the checkpoint holds accumulator objects; a
  count and an integer sum (AVG's too) convert, other calls (a MIN, a floating SUM) are refused.

A pruned aggregate's signature also says which calls it does not compute (``pruned_calls``, their
EXPLAIN labels; recorded, never compared), so that a restore into a query that reads one says so.
``before_pruning`` is never recorded in a checkpoint (:func:`~streamsql.checkpoint.operators.recordable`),
and only that direction is accepted: a checkpoint of a pruned aggregate restored into a query that
reads a call it pruned is refused (its state for that call was never kept).
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from streamsql.checkpoint.operators import BEFORE_PRUNING, PRUNED_CALLS
from streamsql.functions.accumulators import Aggregates, fixed_width_supported
from streamsql.plan.nodes import CalcNode, GroupAggNode, PlanNode, walk

Signatures = dict[str, dict[str, Any]]
log = logging.getLogger(__name__)


def add_before_pruning(roots: list[PlanNode], current: Signatures,
                       signatures_of: Callable[[list[PlanNode]], Signatures]) -> Signatures:
    """``current`` with ``before_pruning`` in each signature that pruning changed (module docstring).

    Args:
        roots: the job's plan (ids assigned); its pruned aggregates are put back as planned while
            ``signatures_of`` runs, then restored.
        current: the plan's signatures (changed in place and returned).
        signatures_of: the signatures of a plan as it is.
    """
    pruned = [n for n in walk(roots) if isinstance(n, GroupAggNode) and n.unpruned is not None]
    if not pruned:
        return current
    try:
        with _as_planned(roots, pruned):
            before = signatures_of(roots)
    except Exception:  # noqa: BLE001 - a shape this analysis missed: such checkpoints are refused as before
        log.warning("the state signatures before pruning could not be computed: a checkpoint written "
                    "before unread GROUP BY calls were pruned is not restored", exc_info=True)
        return current
    for op, sig in current.items():
        old = before.get(op)
        if old is not None and old != sig:
            sig[BEFORE_PRUNING] = {"signature": old, "kept": None, "refused": None}
    for node in pruned:
        if node.id in current:
            current[node.id][PRUNED_CALLS] = [label for i, label in enumerate(node.unpruned.labels)
                                              if i not in node.unpruned.kept]
        entry = current.get(node.id, {}).get(BEFORE_PRUNING)
        if entry is not None:
            entry["kept"] = list(node.unpruned.kept)
            entry["refused"] = _form_change(node)
    return current


@contextmanager
def _as_planned(roots: list[PlanNode], pruned: list[GroupAggNode]) -> Iterator[None]:
    """Inside: every aggregate of ``pruned`` as planned, the Calcs reading it over its planned schema.

    A Calc reads its input's columns by name, so over the planned schema it computes the same; every
    reader is switched (sub-plan reuse may have given an aggregate pruned alike in two INSERTs two).
    """
    readers: dict[int, list[CalcNode]] = {}
    for n in walk(roots):
        if isinstance(n, CalcNode) and n.inputs:
            readers.setdefault(id(n.inputs[0]), []).append(n)
    saved_nodes, saved_calcs = [], []
    try:
        for node in pruned:
            saved_nodes.append((node, node.aggs, node.labels, node.schema))
            planned = node.unpruned
            node.aggs, node.labels, node.schema = planned.aggs, planned.labels, planned.schema
            for calc in readers.get(id(node), []):
                saved_calcs.append((calc, calc.query))
                calc.query = dataclasses.replace(calc.query, input_schema=planned.schema)
        yield
    finally:
        for node, aggs, labels, schema in saved_nodes:
            node.aggs, node.labels, node.schema = aggs, labels, schema
        for calc, query in saved_calcs:
            calc.query = query


def _form_change(node: GroupAggNode) -> str | None:
    """Why the pruned aggregate's state cannot take the planned one's: its accumulator form changed.

    Objects before, fixed-width records now (the pruned calls were the only ones without that form)
    converts where every remaining state's does (a count, an integer sum:
    :meth:`~streamsql.functions.aggregate_function.AggregateFunction.fixed_of_object`).
    """
    schema = node.inputs[0].schema
    before, now = fixed_width_supported(node.unpruned.aggs, schema), fixed_width_supported(node.aggs, schema)
    if before == now:
        return None
    kept = Aggregates(node.aggs, schema, list(node.schema)[node.num_keys:], "GROUP BY", row_count=True)
    if all(s.fixed_of_object(s.create()) is not None for s in kept.states):
        return None
    dropped = [label for i, label in enumerate(node.unpruned.labels) if i not in node.unpruned.kept]
    return (f"its calls {', '.join(dropped)} are read by nothing, so they are no longer computed (as Flink's "
            "PruneAggregateCallRule; StreamSQL up to f3e00a5a computed them), and without them the calls "
            f"{', '.join(node.labels)} keep fixed-width accumulators where the checkpoint holds the "
            "accumulator objects of every call, which do not convert to them (a count and an integer sum do)")
