"""Which columns, and which fields of ROW columns, of a scan the job reads: what a source may leave undecoded.

A Kafka table's value format decodes every column of every record, also those no operator
reads: Q2 of the benchmarks (``SELECT auction, price, date_time FROM bids WHERE ...``) built the
``channel``, ``url`` and ``extra`` strings of each bid only to drop them in the Calc above; over
Nexmark's one events table (three ROW columns ``person``, ``auction``, ``bid``), the computed
``dateTime`` column reads a field of each ROW, so every field of all three was decoded.
:func:`scan_reads` answers, for each scan of a plan, the paths some reader uses: ``(column,)``
for a whole column, ``(column, field, ...)`` for a field of a ROW column (and all of that field).
The runtime hands them to the source (``ConnectorContext.read_columns``), whose format may then
leave the rest NULL when skipping it cannot change what the job does
(:meth:`~streamsql.connectors.formats.common.Decoder.narrow`: Flink's Kafka source decodes every
column, so a record that fails on a value nobody reads still fails).

The scan's schema, and so the plan, EXPLAIN and every operator above, stay as they are: the
unread columns and fields are still there, NULL. The analysis is conservative: a column counts
as read whole unless every reader of the scan is

- a Calc (``CalcNode``): it reads what its items and condition name
  (:func:`~streamsql.plan.calc_merge.column_references`); a reference wrapped in
  ``struct_extract(..., 'field')`` (how ``row.field`` and ``row['field']`` compile) reads that
  field only, any other reference (the ROW compared, cast, passed to a function or a sink) all
  of it. An item that is a column passed on unchanged reads what the Calc's own readers read of
  it. Checked by compiling the Calc over those columns and fields alone (a reference the
  analysis missed fails there, and the scan reads all);
- a watermark assigner: it reads its expression's columns and the rowtime, and passes every
  column on, so its own readers' reads count too.

Anything else reading a scan (a sink, a join, an aggregate, a collect node, an exchange), or a
scan read by nothing (a plan's root), reads every column (None).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Union

import pyarrow as pa

from streamsql.core.errors import SqlError
from streamsql.plan.calc_merge import column_references, duck_tokens
from streamsql.plan.nodes import CalcNode, PlanNode, ScanNode, WatermarkAssignerNode, readers_of
from streamsql.plan.query import QuerySpec, compile_query

#: What is read of some columns: ``{name: None}`` reads all of the column, ``{name: tree}`` the
#: fields of a ROW column that ``tree`` (never empty) names, each in the same way.
Tree = dict[str, Union["Tree", None]]


def scan_reads(nodes: list[PlanNode], wanted: Callable[[ScanNode], bool] | None = None,
               ) -> dict[int, frozenset[tuple[str, ...]] | None]:
    """``{id(scan): the paths of its columns some reader uses, or None for all}`` (module docstring).

    A path is ``(column,)`` (all of it) or ``(column, field, ...)`` (that field of a ROW column);
    no path is a prefix of another.

    Args:
        nodes: every node of the graph that will run (:func:`~streamsql.plan.nodes.walk` of its
            roots): a scan's readers must all be among them.
        wanted: the scans to analyse (None: all); the others are left out (read whole). The
            analysis compiles each Calc above a scan twice more with DuckDB, which a source that
            decodes every column anyway has no use for.
    """
    readers = readers_of(nodes)
    out = {}
    for n in nodes:
        if type(n) is ScanNode and (wanted is None or wanted(n)):
            tree = _used(n, readers)
            out[id(n)] = frozenset(paths(tree)) if tree else None  # none read: SELECT 1 FROM t
    return out


def paths(tree: Tree) -> list[tuple[str, ...]]:
    """The paths of ``tree``'s leaves: ``{"a": None, "p": {"x": None}}`` is ``[("a",), ("p", "x")]``."""
    return [(k, *rest) for k, v in tree.items() for rest in ([()] if v is None else paths(v))]


def merge(a: Tree, b: Tree) -> Tree:
    """What ``a`` and ``b`` read together."""
    out = dict(a)
    for k, v in b.items():
        if k not in out:
            out[k] = v
        elif out[k] is not None:
            out[k] = None if v is None else merge(out[k], v)
    return out


def _narrowed(t: pa.DataType, tree: Tree | None) -> pa.DataType:
    """Arrow type ``t`` with only the struct fields ``tree`` names (``t`` itself for None or no struct)."""
    if tree is None or not pa.types.is_struct(t):
        return t
    return pa.struct([f.with_type(_narrowed(f.type, tree[f.name])) for f in t if f.name in tree])


def _used(node: PlanNode, readers: dict[int, list[PlanNode]]) -> Tree | None:
    """What of ``node``'s output its readers use, or None when that is not known."""
    above = readers.get(id(node))
    if not above:
        return None
    used: Tree = {}
    for r in above:
        if type(r) is CalcNode:
            names = _calc_reads(r, readers)
        elif type(r) is WatermarkAssignerNode and r.schema.names == node.schema.names:
            passed = _used(r, readers)
            query = None if passed is None else _query_reads(r.query, {})
            names = None if query is None else merge(merge(query, passed), {r.rowtime: None})
        else:
            names = None
        if names is None:
            return None
        used = merge(used, names)
    return used


def _calc_reads(calc: CalcNode, readers: dict[int, list[PlanNode]]) -> Tree | None:
    """What ``calc`` reads of its input: its columns passed on are read as the Calc's readers read them."""
    q = calc.query
    passed: dict[str, str] = {}  # output column -> the input column it is
    duck = q.duckdb_schema
    for j, (name, e) in enumerate(q.items):
        refs = column_references(e)
        if [r[:2] for r in refs] == [(0, len(e))] and refs[0][2] in q.input_schema.names:
            col = refs[0][2]
            same = q.input_schema.field(col).type == q.output_schema.field(j).type
            if same and (duck is None or duck.field(j).type == q.output_schema.field(j).type):
                passed[name] = col
    above = _used(calc, readers) if passed else None
    followed = {} if above is None else {n: c for n, c in passed.items()}
    reads = _query_reads(q, followed)
    if reads is None:
        return None
    for name, col in followed.items():
        if name in above:
            reads = merge(reads, {col: above[name]})
    return reads


def _query_reads(q: QuerySpec, followed: dict[str, str]) -> Tree | None:
    """What ``q`` reads of its input, but for the items ``followed`` names; None when not proven.

    Compiled over all of its input and over what it reads alone, ``q``'s items (but those
    followed, columns passed on) must have the same types (a reference the analysis missed fails
    DuckDB's binder).
    """
    exprs = [e for n, e in q.items if n not in followed] + ([q.condition] if q.condition is not None else [])
    tree: Tree = {}
    for e in exprs:
        for path in field_paths(e):
            tree = merge(tree, _tree(path))
    if not tree:  # SELECT 1 FROM t: DuckDB takes no table of no column; nothing to gain anyway
        return None if exprs else tree
    if all(tree.get(n, 0) is None for n in q.input_schema.names):
        return tree
    narrowed = pa.schema([f.with_type(_narrowed(f.type, tree[f.name]))
                          for f in q.input_schema if f.name in tree])
    kept = [(n, e) for n, e in q.items if n not in followed]
    try:
        full = compile_query(kept, q.condition, q.input_schema)
        check = compile_query(kept, q.condition, narrowed)
    except SqlError:
        return None
    return tree if check.output_schema.types == full.output_schema.types else None


def _tree(path: tuple[str, ...]) -> Tree:
    return {path[0]: None if len(path) == 1 else _tree(path[1:])}


def field_paths(sql: str) -> list[tuple[str, ...]]:
    """What DuckDB SQL ``sql`` (as compiled here) reads: ``(column,)`` or ``(column, field, ...)`` each.

    A column reference inside ``struct_extract(<ref>, 'field')`` (redundant parentheses around
    ``<ref>`` allowed), itself possibly inside another, reads that field; otherwise all of it.
    """
    toks = [(pos, tok) for pos, tok in duck_tokens(sql) if not tok.isspace()]
    at = {pos: k for k, (pos, _) in enumerate(toks)}
    words = [t for _, t in toks]
    out = []
    for start, _, name in column_references(sql):
        lo = hi = at[start]
        path = [name]
        while lo >= 1 and words[lo - 1] == "(":
            if hi + 1 < len(words) and words[hi + 1] == ")" and not (lo >= 2 and _is_word(words[lo - 2])):
                lo, hi = lo - 1, hi + 1  # ( <ref> )
            elif (lo >= 2 and words[lo - 2].lower() == "struct_extract" and hi + 3 < len(words)
                  and words[hi + 1] == "," and words[hi + 2].startswith("'") and words[hi + 3] == ")"):
                path.append(words[hi + 2][1:-1].replace("''", "'"))
                lo, hi = lo - 2, hi + 3
            else:
                break
        out.append(tuple(path))
    return out


def _is_word(tok: str) -> bool:
    return tok[:1].isalpha() or tok[:1] in "_\""
