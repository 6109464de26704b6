"""Which columns of a scan the job reads: what a source may leave undecoded.

A Kafka table's value format decodes every column of every record, also those no operator
reads: Q2 of the benchmarks (``SELECT auction, price, date_time FROM bids WHERE ...``) built the
``channel``, ``url`` and ``extra`` strings of each bid only to drop them in the Calc above.
:func:`scan_reads` answers, for each scan of a plan, the set of its columns that some reader
uses; the runtime hands it to the source (``ConnectorContext.read_columns``), whose format may
then leave the others NULL when skipping them cannot change what the job does
(:meth:`~streamsql.connectors.formats.common.Decoder.decoded_fields`: Flink's Kafka source
decodes every column, so a record that fails on a column nobody reads still fails).

The scan's schema, and so the plan, EXPLAIN and every operator above, stay as they are: the
unread columns are still there, NULL. The analysis is conservative: a column counts as read
unless every reader of the scan is

- a Calc (``CalcNode``): it reads the columns its items and condition name
  (:func:`~streamsql.plan.calc_merge.column_references`), checked by compiling the Calc over
  those columns alone (a reference the analysis missed fails there, and the scan reads all);
- a watermark assigner: it reads its expression's columns and the rowtime, and passes every
  column on, so its own readers' columns count too.

Anything else reading a scan (a sink, a join, an aggregate, a collect node, an exchange), or a
scan read by nothing (a plan's root), reads every column (None).
"""

from __future__ import annotations

import pyarrow as pa

from streamsql.core.errors import SqlError
from streamsql.plan.calc_merge import column_references
from streamsql.plan.nodes import CalcNode, PlanNode, ScanNode, WatermarkAssignerNode
from streamsql.plan.query import QuerySpec, compile_query


def scan_reads(nodes: list[PlanNode]) -> dict[int, frozenset[str] | None]:
    """``{id(scan): the names of its columns some reader uses, or None for all}`` (module docstring).

    Args:
        nodes: every node of the graph that will run (:func:`~streamsql.plan.nodes.walk` of its
            roots): a scan's readers must all be among them.
    """
    readers: dict[int, list[PlanNode]] = {}
    for n in nodes:
        for i in n.inputs:
            readers.setdefault(id(i), []).append(n)
    return {id(n): _used(n, readers) for n in nodes if type(n) is ScanNode}


def _used(node: PlanNode, readers: dict[int, list[PlanNode]]) -> frozenset[str] | None:
    """The columns of ``node``'s output its readers use, or None when that is not known."""
    above = readers.get(id(node))
    if not above:
        return None
    used: set[str] = set()
    for r in above:
        if type(r) is CalcNode:
            names = _query_reads(r.query)
        elif type(r) is WatermarkAssignerNode and r.schema.names == node.schema.names:
            passed = _used(r, readers)
            names = None if passed is None else _query_reads(r.query) | passed | {r.rowtime}
        else:
            names = None
        if names is None:
            return None
        used |= names
    return frozenset(used)


def _query_reads(q: QuerySpec) -> frozenset[str] | None:
    """The input columns ``q`` names, or None when ``q`` does not compile over them alone (or names none).

    Compiled over all of its input and over the named columns alone, ``q`` must give the same
    output schema (a reference :func:`column_references` missed fails DuckDB's binder).
    """
    exprs = [e for _, e in q.items] + ([q.condition] if q.condition is not None else [])
    names = frozenset(name for e in exprs for _, _, name in column_references(e))
    if names >= set(q.input_schema.names):
        return names
    if not names:  # SELECT 1 FROM t: DuckDB takes no table of no column; nothing to gain anyway
        return None
    narrowed = pa.schema([f for f in q.input_schema if f.name in names])
    try:
        full = compile_query(q.items, q.condition, q.input_schema)
        check = compile_query(q.items, q.condition, narrowed)
    except SqlError:
        return None
    return names if check.output_schema == full.output_schema else None
