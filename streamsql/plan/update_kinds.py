"""UPDATE_BEFORE elimination: which updating results need no -U rows, decided per plan edge.

As Flink's ``FlinkChangelogModeInferenceProgram`` (its update-kind trait, ``ONLY_UPDATE_AFTER``
vs ``BEFORE_AND_AFTER``): a consumer that upserts by its input's unique key ("upsert key") needs
only the new row of a change, ``+U``; every other consumer needs the old one too, ``-U``. When
no consumer of a producer's output needs -U, the producer (GROUP BY, Top-N / deduplication)
does not build them: +I, +U and -D rows only (``changelog=[upsert]`` in EXPLAIN). -D rows are
always kept. What needs -U (Flink 2.3's EXPLAIN CHANGELOG_MODE shows the same):

- a sink, unless its connector writes by the PRIMARY KEY and ignores -U rows
  (:attr:`~streamsql.core.connector.ConnectorSpec.sink_upserts`: upsert-kafka, jdbc with a
  key, blackhole) *and* its PRIMARY KEY is exactly an upsert key of its input (a key differing
  from the group key keeps -U: two group keys can share one sink key, the -U of one must
  reach the sink). A sink without a PRIMARY KEY (blackhole) needs no key. The print sink and
  the result of a SELECT show -U rows, so they need them;
- a Calc with a WHERE condition (Flink's FLINK-9528: ``cnt < 10`` after an aggregation must
  see the old row leave the condition), while a projection forwards its consumers' need;
- any other operator: an aggregate, join, OVER, ranking or UNION over a changelog retracts
  with the -U rows.

Upsert keys (sets of output column indexes, each unique among the current rows), as Flink's
``FlinkRelMdUpsertKeys``: a GROUP BY's keys (the empty key for a global aggregate: one row); a
Top-N's partition keys with its rank number, or its partition keys alone when it keeps one row
(``rn = 1``) without showing the number (each partition key as the first column equal to it: the
ranking's hidden copy of a shown column is that column); a changelog source's PRIMARY KEY;
carried through a watermark assigner, and through a Calc's columns that pass an input column
unchanged or CAST (:meth:`~streamsql.plan.nodes.CalcNode.passthrough`; Flink keeps the key
through the sink's implicit cast, e.g. INT into BIGINT); a semi / anti join's left keys that
contain its left join columns; a regular join's, from each input's keys that contain that input's
join columns (the join shuffles its inputs by them, so only such a key stays on one task: Flink's
``filterKeys`` in ``getJoinUpsertKeys``; ``orders JOIN customers ON o.customer_id = c.id`` has
no upsert key, the order's own key included): each left key with each right key, plus the left
keys when the right side is unique on the join key (some right upsert key within the right join
keys) and the join does not pad the left with NULLs, and symmetrically; none elsewhere (UNION
ALL, an append-only input).

Runs after a statement's plan is built and before its operators are (and before the plan is
cut into stages, whose copies keep :attr:`~streamsql.plan.nodes.PlanNode.update_before`).
"""

from __future__ import annotations

import re

from streamsql.connectors.registry import get_connector
from streamsql.plan.expressions import quote
from streamsql.plan.joins import INNER, LEFT, RIGHT, JoinNode, SemiJoinNode
from streamsql.plan.nodes import (
    INSERT_ONLY,
    CalcNode,
    GroupAggNode,
    PlanNode,
    ScanNode,
    SinkNode,
    WatermarkAssignerNode,
    walk,
)
from streamsql.plan.ranking import KEEP_FIRST_ROWTIME, TOP_N, WINDOW, RankNode

#: ``CAST("col" AS TYPE)``: a Calc item that passes a column under another type (a key still).
_CAST = re.compile(r'CAST\(("(?:[^"]|"")+") AS [^()]+(?:\([\d, ]+\))?\)')


def eliminate_update_before(roots: list[PlanNode]) -> None:
    """Set ``update_before = False`` on the updating nodes of ``roots`` no consumer needs -U from.

    ``roots`` must be every root reading the nodes (a node shared with a plan not given here
    could lose the -U rows that plan needs). Producers that build -U rows (GROUP BY, Top-N)
    then skip them; a Calc between such a producer and its sink is marked too, for EXPLAIN.
    """
    order = walk(roots)
    consumers: dict[int, list[PlanNode]] = {id(n): [] for n in order}
    for n in order:
        for i in n.inputs:
            consumers[id(i)].append(n)
    needs: dict[int, bool] = {}  # id(node) → some consumer needs -U rows from it
    for n in reversed(order):  # consumers before their inputs
        if n.mode == INSERT_ONLY:
            continue
        readers = consumers[id(n)]
        needs[id(n)] = not readers or any(_needs_before(c, n, needs) for c in readers)
    for n in order:  # producers first: a Calc forwards what its input emits
        if n.mode == INSERT_ONLY or needs.get(id(n), True):
            continue
        if isinstance(n, GroupAggNode) or (isinstance(n, RankNode) and n.strategy == TOP_N):
            n.update_before = False
        elif isinstance(n, CalcNode) and n.where_sql is None:
            n.update_before = n.inputs[0].update_before
        # an exchange source or any other updating node that builds -U rows keeps them


def _needs_before(consumer: PlanNode, producer: PlanNode, needs: dict[int, bool]) -> bool:
    """Whether ``consumer`` needs the -U rows of its input ``producer`` (module docstring)."""
    if type(consumer) is SinkNode or consumer.kind == "sink-materializer":
        # a sink upsert materializer is part of its sink in Flink: its input is asked what the
        # sink would ask (only +U when the sink upserts by the input's key, as under FORCE)
        table = consumer.table
        if not get_connector(table.connector).sink_upserts(table):
            return True
        if not table.primary_key:
            return False
        names = [n.lower() for n in consumer.schema.names]
        pk = frozenset(names.index(k.lower()) for k in table.primary_key if k.lower() in names)
        return len(pk) != len(table.primary_key) or pk not in upsert_keys(producer)
    if isinstance(consumer, CalcNode) and consumer.where_sql is None:
        return needs.get(id(consumer), True)
    return True


def upsert_keys(node: PlanNode) -> list[frozenset[int]]:
    """The upsert keys of ``node``'s output (module docstring): column index sets, maybe none."""
    if node.mode == INSERT_ONLY:  # Flink: an anti join over a keyed append-only table has none
        return []
    if isinstance(node, GroupAggNode):
        return [frozenset(range(node.num_keys))]
    if isinstance(node, ScanNode):
        return _table_key(node)
    if isinstance(node, WatermarkAssignerNode):
        return upsert_keys(node.inputs[0])
    if isinstance(node, SemiJoinNode):
        return _co_located(upsert_keys(node.inputs[0]), node.left_keys)
    if type(node) is JoinNode:
        return _join_keys(node)
    if isinstance(node, RankNode) and node.strategy == TOP_N:
        return _rank_keys(node)
    if isinstance(node, CalcNode):
        return _through_calc(node, upsert_keys(node.inputs[0]))
    return []


def sink_input_keys(node: PlanNode) -> list[frozenset[int]]:
    """The upsert keys of ``node``, the input of a sink, as Flink checks them against its PRIMARY KEY.

    An updating input's are :func:`upsert_keys`. An insert-only input has them too in Flink 2.3
    (each read from its messages, ``tests/plan/test_on_conflict.py``): a table's PRIMARY KEY,
    carried through watermark assigners and projections, a deduplication's PARTITION BY keys
    (keep-first on a rowtime) and a window Top-N's (``rn = 1``, or with the rank number); none
    elsewhere (a window aggregate, a join, UNION ALL, VALUES).
    """
    if node.mode != INSERT_ONLY:
        return upsert_keys(node)
    if type(node) is ScanNode:
        return _table_key(node)
    if isinstance(node, WatermarkAssignerNode):
        return sink_input_keys(node.inputs[0])
    if isinstance(node, CalcNode):
        return _through_calc(node, sink_input_keys(node.inputs[0]))
    if isinstance(node, RankNode) and node.strategy in (KEEP_FIRST_ROWTIME, WINDOW):
        return _rank_keys(node)
    return []


def _table_key(scan: ScanNode) -> list[frozenset[int]]:
    """A scanned table's PRIMARY KEY as column indexes (``[]`` without one)."""
    names = [n.lower() for n in scan.schema.names]
    pk = [k.lower() for k in scan.table.primary_key]
    return [frozenset(names.index(k) for k in pk)] if pk and all(k in names for k in pk) else []


def _through_calc(calc: CalcNode, keys: list[frozenset[int]]) -> list[frozenset[int]]:
    """The input ``keys`` of ``calc`` as its output columns: those whose every column it passes on."""
    back: dict[int, int] = {}
    for out, inp in sorted(_key_columns(calc).items(), reverse=True):
        back[inp] = out  # the first output column of each passed input column
    return [frozenset(back[i] for i in key) for key in keys if all(i in back for i in key)]


def _rank_keys(rank: RankNode) -> list[frozenset[int]]:
    """A ranking's keys: its partition keys with the rank number, or alone when it keeps one row."""
    partition = [_same_column(rank.inputs[0], p) for p in rank.partition]
    if rank.output_rank:
        return [frozenset([*partition, rank.rn_index])]
    return [frozenset(partition)] if rank.rank_end == 1 else []


def _key_columns(calc: CalcNode) -> dict[int, int]:
    """Output column → input column, for the items that pass an input column, unchanged or CAST."""
    by_ref = {quote(n): i for i, n in enumerate(calc.query.input_schema.names)}
    out = {}
    for o, (_, expr) in enumerate(calc.query.items):
        cast = _CAST.fullmatch(expr)
        i = by_ref.get(cast.group(1) if cast else expr)
        if i is not None:
            out[o] = i
    return out


def _join_keys(join: JoinNode) -> list[frozenset[int]]:
    """A regular join's upsert keys (module docstring), as Flink's ``getJoinUniqueKeys``."""
    left, right = join.inputs
    width = len(left.schema.names)
    all_lkeys, all_rkeys = upsert_keys(left), upsert_keys(right)
    # a side is unique on its join columns by any of its keys; only the co-located keys go on
    right_unique = any(k <= set(join.right_keys) for k in all_rkeys)
    left_unique = any(k <= set(join.left_keys) for k in all_lkeys)
    lkeys = _co_located(all_lkeys, join.left_keys)
    rkeys = [frozenset(i + width for i in k) for k in _co_located(all_rkeys, join.right_keys)]
    out = [lk | rk for lk in lkeys for rk in rkeys]
    if right_unique and join.join_type in (INNER, LEFT):
        out += lkeys
    if left_unique and join.join_type in (INNER, RIGHT):
        out += rkeys
    return list(dict.fromkeys(out))


def _co_located(keys: list[frozenset[int]], join_columns: list[int]) -> list[frozenset[int]]:
    """The ``keys`` of a join input that contain all its ``join_columns`` (Flink's ``filterKeys``).

    A join shuffles each input by its join columns: the rows of one value of another key may
    reach the join on several tasks, so that key says nothing about the join's output.
    """
    return [k for k in keys if k >= set(join_columns)]


def _same_column(node: PlanNode, col: int) -> int:
    """The first column of ``node``'s output equal to column ``col`` in every row (maybe ``col``).

    A ranking's PARTITION BY keys are hidden copies (``"k" AS __rank_p0``) of the columns a
    query shows: in its input Calc both pass the same input column.
    """
    if not isinstance(node, CalcNode):
        return col
    source = node.passthrough()
    if col not in source:
        return col
    return min(o for o, i in source.items() if i == source[col])


def changelog_mode(node: PlanNode) -> str:
    """The row kinds ``node`` emits as Flink 2.3's ``EXPLAIN CHANGELOG_MODE`` spells them.

    ``I`` for an insert-only output; an updating one is ``I,UB,UA`` (``I,UA`` when no consumer
    needs -U rows, see :func:`eliminate_update_before`), with ``D`` when it may delete a row; a
    sink consumes and emits nothing: ``NONE``.
    """
    if isinstance(node, SinkNode):
        return "NONE"
    if node.mode == INSERT_ONLY:
        return "I"
    kinds = ["I", "UB", "UA"] if node.update_before else ["I", "UA"]
    return ",".join(kinds + ["D"] if _deletes(node) else kinds)


def _deletes(node: PlanNode) -> bool:
    """Whether an updating ``node`` may emit -D rows (as Flink's changelog mode inference says)."""
    if node.mode == INSERT_ONLY:
        return False
    retracted = any(i.mode != INSERT_ONLY for i in node.inputs)
    if isinstance(node, GroupAggNode):  # a group ends only when its last row is retracted
        return retracted
    if isinstance(node, (RankNode, JoinNode, ScanNode)):
        # rows leave a Top-N (Flink plans a rowtime deduplication keeping the last row as one too);
        # a join retracts its NULL-padded rows; a changelog source deletes
        return True
    if node.kind == "changelog-ptf":  # FROM_CHANGELOG (TO_CHANGELOG is insert-only): Flink's [I,UB,UA,D]
        return True
    return any(_deletes(i) for i in node.inputs)

