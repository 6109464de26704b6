"""``INSERT ... ON CONFLICT``: a sink whose PRIMARY KEY is not the query's upsert key, as Flink 2.3.

Flink 2.3 (FLIP-558) refuses a query into an upsert sink with a PRIMARY KEY when no upsert key of
the query (:func:`~streamsql.plan.update_kinds.sink_input_keys`) lies within that key: two rows
with different upsert keys, e.g. the groups ``(a=1, b=1)`` and ``(a=1, b=2)`` of ``GROUP BY a, b``
into a sink keyed by ``a``, would overwrite each other in an order nobody chose. The INSERT must
then say how to resolve it with ``ON CONFLICT DO DEDUPLICATE`` (the latest row per sink key, as
Flink's SinkUpsertMaterializer), ``DO ERROR`` or ``DO NOTHING``. Flink's checks, in its order:

1. an ON CONFLICT clause needs an upsert sink: not an append-only one (a sink that cannot take
   updates, or a print / blackhole sink fed an insert-only query);
2. ``DO ERROR`` and ``DO NOTHING`` need a WATERMARK on every source table (Flink resolves their
   conflicts as the watermark passes);
3. without a clause, a key mismatch is an error (``'table.exec.sink.require-on-conflict'`` =
   ``'false'`` makes it ``DO DEDUPLICATE``; ``'table.exec.sink.upsert-materialize'`` = ``'NONE'``
   skips the check: the sink writes whatever row comes last per key).

An upsert sink (upsert-kafka, jdbc) declares an upsert changelog whatever its input, so an
insert-only query into one is checked too: its rows upsert the sink key, and without an upsert
key within it (a table without a PRIMARY KEY, a window aggregate, a UNION ALL, VALUES) Flink 2.3
refuses it; ``ON CONFLICT DO DEDUPLICATE`` then plans it as it is (the latest row per key wins).
A print or blackhole sink takes its input's mode: an insert-only query makes it append-only,
never checked. A sink key that contains an upsert key (a superset) is accepted without a clause,
as Flink. Where the keys differ, ``DO DEDUPLICATE`` on an updating query (or no clause with
``'table.exec.sink.require-on-conflict'`` = ``'false'``) puts a :class:`SinkMaterializerNode`
before the sink, as Flink puts its SinkUpsertMaterializer there. StreamSQL refuses ``DO ERROR`` /
``DO NOTHING`` at the clause, which it does not run.

``'table.exec.sink.upsert-materialize'`` (Flink 2.3's ``analyzeUpsertMaterializeStrategy``):
``AUTO`` (the default) as above; ``NONE`` never materializes nor checks; ``FORCE`` materializes
before every sink with a PRIMARY KEY, whatever the keys and the clause say (a print sink then
prints ``+U`` for a second row of a key, where it printed ``+I``). A "retract" sink, whose
changelog has -U rows whatever it is asked (a debezium-json format:
:attr:`~streamsql.core.connector.ConnectorSpec.sink_retracts`), is never checked nor
materialized, and may not take an ON CONFLICT clause. Under FORCE an append-only sink (a
filesystem or kafka json table with a key) is not materialized here, where Flink materializes
it: it writes every row it gets, one per input row, with the same values either way.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from sqlglot import exp

from streamsql.connectors.registry import get_connector
from streamsql.core.catalog import TableDef
from streamsql.core.errors import PlanError
from streamsql.plan.joins import JoinNode, SemiJoinNode
from streamsql.plan.nodes import (
    INSERT_ONLY,
    RETRACT,
    CalcNode,
    PlanNode,
    ScanNode,
    SinkNode,
    ValuesNode,
    walk,
)
from streamsql.plan.ranking import RankNode
from streamsql.plan.update_kinds import sink_input_keys, upsert_keys

REQUIRE_ON_CONFLICT = "table.exec.sink.require-on-conflict"
UPSERT_MATERIALIZE = "table.exec.sink.upsert-materialize"


@dataclass(eq=False)
class SinkMaterializerNode(PlanNode):
    """Keeps the alive rows per sink key and emits the latest (``ON CONFLICT DO DEDUPLICATE``).

    Output: the input's columns, an upsert changelog on the sink key (``+I``, ``+U``, ``-D``);
    see :mod:`streamsql.runtime.operators.sink_materializer`.

    Attributes:
        sink_key: input column indexes of the sink's PRIMARY KEY.
        upsert_key: input column indexes of the input's upsert key (rows are matched on it), or
            None (matched on every column).
        table: the sink's table (its input needs -U rows as the sink would:
            :func:`~streamsql.plan.update_kinds.eliminate_update_before`).
        labels: ``(sink key, upsert key)`` as EXPLAIN prints them.
    """

    sink_key: list[int] = field(default_factory=list)
    upsert_key: list[int] | None = None
    table: TableDef | None = None
    labels: tuple[str, str] = ("", "")

    kind: ClassVar[str] = "sink-materializer"
    stateful: ClassVar[bool] = True

    def describe(self) -> str:
        """One line for EXPLAIN (Flink shows it as the sink's ``upsertMaterialize=[true]``)."""
        return (f"SinkUpsertMaterializer(pk=[{self.labels[0]}], upsertKey=[{self.labels[1]}], "
                f"conflictStrategy=[DEDUPLICATE])")


def check_conflict(planner, sink: SinkNode, conflict: exp.OnConflict | None, target: exp.Expression) -> None:
    """Flink's checks of an INSERT's ON CONFLICT clause (or its absence) against its sink.

    Where the sink's key differs from the query's upsert key and the INSERT deduplicates, a
    :class:`SinkMaterializerNode` is put between ``sink`` and its input (``sink.inputs[0]``).

    Args:
        planner: the statement's planner (config, positioned errors).
        sink: the planned sink; its input's columns are the sink table's columns in order.
        conflict: the INSERT's ``ON CONFLICT`` clause, or None.
        target: the INSERT's target table name (where a key mismatch is reported).

    Raises:
        PlanError: Flink's refusals (module docstring), at the clause or the target table; or a
            clause StreamSQL does not run (DO ERROR / DO NOTHING), at the clause.
    """
    table, node = sink.table, sink.inputs[0]
    spec = get_connector(table.connector)
    action = conflict.args["action"].name if conflict is not None else None
    append_only = not spec.sink_accepts_updates(table) or (
        node.mode == INSERT_ONLY and not spec.sink_always_upserts(table))
    retract = not append_only and spec.sink_retracts(table)
    if conflict is not None and (append_only or retract):
        why = "it only accepts INSERT (append-only) changes" if append_only else \
            "it requires UPDATE_BEFORE (retract mode)"
        msg = (f"ON CONFLICT clause is only allowed for upsert sinks. The sink '{table.name}' is not an "
               f"upsert sink because {why}.")
        planner._fail(conflict, msg, PlanError)
    if action in ("DO ERROR", "DO NOTHING"):
        missing = list(dict.fromkeys(n.table.name for n in walk([node])
                                     if type(n) is ScanNode and n.table.watermark is None))
        if missing:
            msg = (f"ON CONFLICT {action} requires all source tables to define watermarks, but the "
                   f"following source(s) do not: {', '.join(missing)}. Please add a WATERMARK "
                   f"declaration to these tables.")
            planner._fail(conflict, msg, PlanError)
        msg = (f"ON CONFLICT {action} is not supported: StreamSQL does not resolve sink key conflicts "
               f"at the watermark; use ON CONFLICT DO DEDUPLICATE or make the sink's PRIMARY KEY the "
               f"query's key")
        planner._fail(conflict, msg, PlanError)
    strategy = planner.config.choice(UPSERT_MATERIALIZE) or "AUTO"
    if not table.primary_key or strategy == "NONE" or retract:
        return
    keys = sink_input_keys(node)
    if strategy == "FORCE":
        if not spec.sink_accepts_updates(table):
            # Flink materializes here too, and its +U rows reach a sink that writes every row as
            # an insert: one row out per row in, the same rows as without it
            return
    else:  # AUTO
        if append_only or (node.mode == INSERT_ONLY and action == "DO DEDUPLICATE"):
            return  # Flink: the sink writes the inserts as upserts, the latest row per key wins
        mismatch = _key_mismatch(sink, keys)
        if mismatch is None:
            return
        if conflict is None and planner.config.get(REQUIRE_ON_CONFLICT, "true").lower() == "true":
            msg = (f"The query has an upsert key that differs from the primary key of the sink table "
                   f"'{table.name}'. Primary key: {mismatch[0]}, upsert key: {mismatch[1]}. This can lead to "
                   f"non-deterministic results when multiple records with different upsert keys map to the "
                   f"same primary key. Please specify an ON CONFLICT clause to define how conflicts should "
                   f"be handled: ON CONFLICT DO DEDUPLICATE (update to the latest record, state intensive, "
                   f"since we need to keep the entire history), or ON CONFLICT DO ERROR (fail on "
                   f"conflict), or ON CONFLICT DO NOTHING (keep first record).")
            planner._fail(target, msg, PlanError)
    names = list(node.schema.names)
    lower = [n.lower() for n in names]
    sink_key = [lower.index(k.lower()) for k in table.primary_key if k.lower() in lower]
    upsert_key = sorted(keys[0]) if keys else None
    sink.inputs[0] = SinkMaterializerNode(
        inputs=[node], schema=node.schema, mode=RETRACT, update_before=False, sink_key=sink_key,
        upsert_key=upsert_key, table=table,
        labels=(", ".join(table.primary_key), ", ".join(names[i] for i in upsert_key) if upsert_key else ""))
    sink.mode = RETRACT


def _key_mismatch(sink: SinkNode, keys: list[frozenset[int]]) -> tuple[str, str] | None:
    """The sink key and the query's first upsert key as Flink prints them (``("[a]", "[a, b]")``).

    That is when no upsert key of the input of ``sink`` (``keys``) lies within the sink table's
    PRIMARY KEY; None when one does.
    """
    node, pk = sink.inputs[0], sink.table.primary_key
    lower = [n.lower() for n in node.schema.names]
    pk_cols = frozenset(lower.index(k.lower()) for k in pk if k.lower() in lower)
    if any(k <= pk_cols for k in keys):
        return None
    return f"[{', '.join(pk)}]", _key_label(node, keys)


def _key_label(node: PlanNode, keys: list[frozenset[int]]) -> str:
    """The first upsert key as Flink's message names it: ``[a, b]``; without one ``none``, or ``""``.

    Flink prints an unknown key set (an updating input without a key, a VALUES) as ``none`` and an
    empty one (an insert-only table without a PRIMARY KEY, a window aggregate, a UNION ALL, an
    ``ORDER BY ... LIMIT`` over an updating input, a regular join whose inputs' keys do not contain
    their join columns, and a semi / anti join's left keys likewise) as nothing (``upsert key:
    .``); all were read from Flink 2.3's messages (scripts/flink_join_upsert_keys.py).
    """
    if keys:
        return f"[{', '.join(node.schema.names[i] for i in sorted(keys[0]))}]"
    if node.mode == INSERT_ONLY:
        return "" if not _from_values(node) else "none"
    below = _below_projections(node)
    if isinstance(below, SemiJoinNode):  # its left keys filtered: none left of a known set
        left = below.inputs[0]
        return "none" if _key_label(left, upsert_keys(left)) == "none" else ""
    if isinstance(below, JoinNode):  # Flink's join keys are a set, maybe empty, never unknown
        return ""
    return "" if _sort_limit_over_updates(node) else "none"


def _sort_limit_over_updates(node: PlanNode) -> bool:
    """Whether ``node`` is Flink's ``SortLimit`` over an updating input, or projections of one."""
    node = _below_projections(node)
    return (isinstance(node, RankNode) and node.limit and bool(node.order)
            and node.inputs[0].mode != INSERT_ONLY)


def _from_values(node: PlanNode) -> bool:
    """Whether ``node`` is a VALUES, or projections of one."""
    return isinstance(_below_projections(node), ValuesNode)


def _below_projections(node: PlanNode) -> PlanNode:
    """The first node at or below ``node`` that is not a projection (a Calc)."""
    while isinstance(node, CalcNode):
        node = node.inputs[0]
    return node
