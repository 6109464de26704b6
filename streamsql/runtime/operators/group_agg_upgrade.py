"""A restored GROUP BY's accumulators of calls it no longer computes are dropped, the others kept.

A checkpoint of StreamSQL up to f3e00a5a holds, per key, the accumulators of every call of the
GROUP BY as planned; since :mod:`streamsql.plan.agg_prune` the operator computes only the calls
read above it. When the restore accepted such a checkpoint (its signatures are the plan's before
pruning: :mod:`streamsql.plan.agg_prune_upgrade`), :func:`drop_pruned_calls` rewrites each key's
value before the operator reads any: the states of the kept calls, found through the calls as
planned (``UnprunedCalls.kept``: by identity, not by position among the remaining calls), in this
operator's order; the row count (state 0) stays first. Both forms are rewritten as they are stored
(:mod:`~streamsql.runtime.operators.group_agg`): object accumulator lists
(:data:`~streamsql.runtime.operators.group_agg.GROUP_AGG_OBJECTS`) and fixed-width records
(:data:`~streamsql.runtime.operators.group_agg_columnar.GROUP_AGG_FIXED`, field by field), and object
lists into fixed-width records where the pruned calls were the only ones without that form and the
kept ones convert (a count, an integer sum); the others are refused before the restore by the
signature check (:mod:`streamsql.plan.agg_prune_upgrade`).
"""

from __future__ import annotations

import numpy as np

from streamsql.checkpoint.operators import StateMappingError
from streamsql.functions.accumulators import Aggregates, fixed_width_supported
from streamsql.plan.nodes import GroupAggNode
from streamsql.runtime.operators.group_agg import GROUP_AGG_OBJECTS
from streamsql.runtime.operators.group_agg_columnar import GROUP_AGG_FIXED
from streamsql.state.base import KeyedState
from streamsql.state.layout import StateFormatError


def drop_pruned_calls(node: GroupAggNode, state: KeyedState) -> int:
    """Rewrite ``state`` (restored, of the calls as planned) into ``node``'s pruned calls; the keys rewritten.

    Raises:
        StateMappingError: a value of another form than the calls as planned keep (state TTL, which
            wraps every value, or a checkpoint whose accumulator form differs), naming the operator.
    """
    schema = node.inputs[0].schema
    nk = node.num_keys
    planned = node.unpruned
    before = Aggregates(planned.aggs, schema, list(planned.schema)[nk:], "GROUP BY", row_count=True)
    now = Aggregates(node.aggs, schema, list(node.schema)[nk:], "GROUP BY", row_count=True)
    source = state_sources(before, now, node.unpruned.kept)
    if fixed_width_supported(node.unpruned.aggs, schema):
        rewrite = _fixed_rewrite(before, now, source)
    elif fixed_width_supported(node.aggs, schema):
        rewrite = _objects_to_fixed(now, source)
    else:
        def rewrite(value: bytes) -> bytes:
            accs = GROUP_AGG_OBJECTS.decode(value)
            return GROUP_AGG_OBJECTS.encode([accs[j] for j in source])
    try:
        return state.rewrite_values(rewrite)
    except (StateFormatError, ValueError) as e:  # ValueError: a record of another width
        msg = (f"Cannot drop the accumulators of the calls operator {node.id} no longer computes "
               f"({node.describe()}) from its restored state: {e}")
        raise StateMappingError(msg) from None


def state_sources(before: Aggregates, now: Aggregates, kept: tuple[int, ...]) -> list[int]:
    """Per state of ``now``, the state of ``before`` it continues (state 0, the row count, is 0).

    ``kept``: per call of ``now``, its index among ``before``'s calls.
    """
    source = [0] * len(now.states)
    for call, planned in enumerate(kept):
        source[now.calls[call]] = before.calls[planned]
    return source


def _objects_to_fixed(now: Aggregates, source: list[int]):
    """The rewrite of one accumulator list into a fixed-width record.

    Each kept state's fields from its object
    (:meth:`~streamsql.functions.aggregate_function.AggregateFunction.fixed_of_object`; the signature
    check refused the states that have none).
    """
    dtype = now.fixed_dtype()

    def rewrite(value: bytes) -> bytes:
        accs = GROUP_AGG_OBJECTS.decode(value)
        out = np.zeros(1, dtype)
        for j, state in enumerate(now.states):
            for name, v in state.fixed_of_object(accs[source[j]]).items():
                out[state.field(name)] = v
        return GROUP_AGG_FIXED.wrap(out.tobytes())

    return rewrite


def _fixed_rewrite(before: Aggregates, now: Aggregates, source: list[int]):
    """The rewrite of one fixed-width record: each field of a kept state copied from its old field."""
    old, new = before.fixed_dtype(), now.fixed_dtype()
    fields = [(now.states[j].field(name), before.states[source[j]].field(name))
              for j in range(len(now.states)) for name, _ in now.states[j].fixed_fields()]

    def rewrite(value: bytes) -> bytes:
        record = np.frombuffer(GROUP_AGG_FIXED.unwrap(value), old, count=1)
        out = np.zeros(1, new)
        for to, frm in fields:
            out[to] = record[frm]
        return GROUP_AGG_FIXED.wrap(out.tobytes())

    return rewrite
