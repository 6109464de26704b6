"""What each stateful operator's state means: its signature, recorded in every checkpoint.

A checkpoint's state is stored per operator id (``group-agg-3``: the node's position in the
plan, as Flink's operator hash is its position in the job graph), so an id alone cannot tell
that the operator now at ``group-agg-3`` groups by another column, computes other aggregates
or windows by another size: restoring its state then gives wrong answers without a word. So
each checkpoint also records, per operator with state, a signature (``_metadata``'s
``operators``), and a restore compares it with the new plan's
(:mod:`streamsql.checkpoint.operators`) before any record is processed.

A signature is a JSON-able dict:

- ``operator``: the node kind (``group-agg``, ``window-agg``, ``join``, ``scan``...);
- ``parameters``: the node's own fields that shape its state (aggregate calls with their
  arguments and result types, the window spec, key and time column positions, join type and
  residual condition, rank range...), as canonical JSON values; fields that only label EXPLAIN
  output (aliases, condition text) are left out, so renaming an output column is no change. An
  aggregate call's ``arg`` is what it reads, not where: the ``input`` entries of its argument
  columns (``["src.v INT"]``, ``[]`` for COUNT(*)), and those columns are left out of ``input``
  (:func:`_named_arguments`). So ``AVG(v), MAX(v)`` is one signature whether the Calc before the
  aggregate gives each call a column of its own (StreamSQL up to 735568b, whose checkpoints record
  positions: :func:`recorded_signatures` reads them in this form) or one column to both, as
  Flink's. A call whose accumulator changed format has its ``accumulator`` version
  (:func:`_accumulator_formats`: SUM/AVG(DISTINCT x)'s running sum, a floating SUM's fixed-width
  record, both since sumdist31), so a checkpoint of the old format is refused;
- ``input``: per input, per column, ``origin TYPE``: where the column comes from through the
  stateless projections above it, e.g. ``(ticks.id % 10) INT`` (a table's column is
  ``table.column``; an operator's output column ``<id>.<position>``), so ``GROUP BY a`` and
  ``GROUP BY b`` of one type differ, and so do ``GROUP BY id % 10`` and ``GROUP BY id % 7``.
  Filters are not part of it: a changed WHERE changes which rows reach the operator, not what
  its state means (Flink restores such a job too). A column made by a stateless operator other
  than a Calc (a LATERAL TABLE's Correlate, a lookup join), which has no signature of its own to
  refuse a change with, has as origin that operator's fields and its inputs' origins, hashed
  (``correlate-3[9f2c0b...].10``); a VALUES list's columns have its rows, hashed. A scalar
  Python UDF (and a user aggregate, in ``parameters``) is named by its SQL name and Python module
  and qualified name, not by the name it is called under, which numbers the process's functions
  (:mod:`streamsql.functions.udf_names`);
- ``output``: the output column types;
- ``layout``: :data:`~streamsql.plan.fingerprint.STATE_LAYOUT`, the key and value encodings;
- ``sinks``: the sink tables its output reaches, and ``job_sinks``: every sink table of the job.
  Ids are positions in the plan, so in a statement set an INSERT added before the others, or one
  removed, moves the later INSERTs' operators to other ids, where an operator of another INSERT
  with the same signature (two GROUP BYs that differ in their WHERE only) would claim their state;
  a restore refuses an operator that feeds none of the sinks it fed while the job still writes one
  of them (:mod:`streamsql.checkpoint.operators`);
- ``rows``: per input, the filters its rows passed on their way from the tables (every WHERE
  above it, as origins: ``(src.v > 0)``), sorted; ``filters``: the same in Flink SQL, for
  messages. Not compared on its own (another WHERE restores, see ``input``), and ``twins``: the
  ``rows`` of every other operator of the job whose compared parts are the same as this one's
  (two GROUP BYs of a statement set that differ in their WHERE only). Together they tell an edited
  WHERE from two INSERTs that changed places: a restore refuses an operator whose rows are now
  another operator's of its kind (its old ``rows`` among the new ``twins``, or its new ``rows``
  among the old ``twins``), whatever sinks they feed;
- ``droppable``: True for state Flink does not keep (a watermark assigner's per-split progress):
  a restore that cannot use it starts that operator afresh instead of failing;
- ``explain`` and ``columns``: the node's EXPLAIN line and its input columns' origins in Flink
  SQL (``ticks.id % 10 INT``), shown in messages only (never compared).

A scan is recorded too: its source positions are state (``table``, ``connector``; a VALUES
list's ``rows``, since its position counts them). A table is named in a signature by its name and
connector only: its options (passwords) never reach a checkpoint's ``_metadata``.
Operators downstream of the one that changed keep their signature when what they read keeps
its origin and type: a projection after an aggregate changes no aggregate's signature.
"""

from __future__ import annotations

import dataclasses
import enum
import hashlib
import json
import re
from typing import Any

import pyarrow as pa

from streamsql.checkpoint.operators import unmarked
from streamsql.core.catalog import TableDef
from streamsql.core.errors import SqlError
from streamsql.core.types import Schema, SqlType
from streamsql.functions.accumulators import fixed_width_supported
from streamsql.functions.aggregates import FUNCTIONS, argument_count
from streamsql.functions.udf_names import stable_sql
from streamsql.plan.agg_prune_upgrade import add_before_pruning
from streamsql.plan.fingerprint import STATE_LAYOUT
from streamsql.plan.nodes import (
    CalcNode,
    PlanNode,
    ScanNode,
    SinkNode,
    UnionNode,
    ValuesNode,
    WatermarkAssignerNode,
    walk,
)
from streamsql.plan.specs import seconds_text
from streamsql.plan.stages import ExchangeSinkNode, ExchangeSourceNode
from streamsql.plan.windows import WindowAggNode, WindowTableFunctionNode

#: Node fields never compared: the graph itself, what only labels EXPLAIN output, and a STATE_TTL
#: hint's duration (Flink restores state under another TTL; TTL switched on or off fails the
#: restore loudly anyway: the stored values differ, :mod:`streamsql.state.ttl`).
_NOT_STATE = frozenset({"inputs", "schema", "mode", "id", "update_before", "labels", "condition",
                        "select_sql", "where_sql", "expr_sql", "rowtime", "partition_by", "rows_sql",
                        "out_time_attributes", "guarantee", "guarantee_reason", "table", "state_ttl_ms",
                        "uid", "display", "retry", "shuffle", "per_row", "keep_update_before",
                        "null_rowtime_table", "legacy", "unpruned", "window_text", "equal_on",
                        "partition_keys"})
# window_text: a window-attached aggregate's EXPLAIN window (its state is that of its spec and keys);
# partition_keys: a SESSION aggregate's PARTITION BY keys as EXPLAIN names them (they are among its keys);
# uid: a Python function's registration counter, another in every process; display: EXPLAIN's names;
# retry: a LOOKUP hint's retry on a miss (when a row is looked up again, not what a column means);
# shuffle: a LOOKUP hint's 'shuffle', for EXPLAIN only; per_row (a ranking emitting row by row) and
# keep_update_before (a temporal join keeping -U versions): how rows are emitted, not what the state
# holds, and only on a versioned view's plans (refused before these fields existed);
# null_rowtime_table: whether a NULL rowtime fails the job, not what the state holds; legacy (a
# legacy group window's WindowSpec): whether a NULL rowtime fails the job or reads as 1970, likewise;
# unpruned: a GROUP BY's calls before the unread ones were dropped (its signature is before_pruning's)
# equal_on: the columns a Top-N matches a retraction on (which stored row goes), not what it stores
#: Fields added after checkpoints were recorded without them: left out while empty, so those
#: checkpoints keep their signature, and one with the field set differs from one of the old kind
#: (a join's NULL-safe keys: a join on `=` keys dropped NULL-keyed rows' matches).
_ONLY_WHEN_SET = frozenset({"null_safe_keys"})
#: Comparable parts of a signature, in the order messages list differences.
PARTS = ("operator", "parameters", "input", "output", "layout")
_QUOTED = re.compile(r'"((?:[^"]|"")+)"')
_BARE = re.compile(r"(?<![\w.`'])[A-Za-z_$][\w$]*(?![\w(`'])")


def state_signatures(roots: list[PlanNode]) -> dict[str, dict[str, Any]]:
    """The signature of every node with state in the plan of ``roots``, by node id.

    Call on the whole job's plan (ids assigned), not a stage's sub-plan: a stage starts at
    exchange sources, where the origin of a column is no longer known. Where a GROUP BY's unread
    calls were pruned, the signatures that differ from the plan's before pruning carry it as
    ``before_pruning`` (:mod:`streamsql.plan.agg_prune_upgrade`), which a
    restore accepts and a checkpoint does not record.
    """
    return add_before_pruning(roots, _signatures(roots), _signatures)


def _signatures(roots: list[PlanNode]) -> dict[str, dict[str, Any]]:
    """:func:`state_signatures` of the plan as it is (no ``before_pruning``)."""
    origins = _Origins()
    order = walk(roots)
    sinks = _sinks_reached(order)
    job_sinks = sorted(set().union(*sinks.values()))
    out = {}
    for node in order:
        if isinstance(node, (ExchangeSourceNode, ExchangeSinkNode)):
            continue  # a parallel job's internal topics: positions dropped by a savepoint restore
        if isinstance(node, ScanNode):
            parameters = {"table": node.table.name, "connector": node.table.connector}
            if isinstance(node, ValuesNode):  # its position counts rows of this list
                parameters["rows"] = _canonical(node.rows)
            out[node.id] = {"operator": "scan", "explain": node.describe(), "layout": STATE_LAYOUT,
                            "parameters": parameters, "input": [], "output": [], "droppable": False}
        elif node.stateful:
            inputs = [(origins.of(i), _types(i.schema)) for i in node.inputs]
            out[node.id] = {
                "operator": node.kind, "explain": node.describe(), "layout": STATE_LAYOUT,
                "parameters": _parameters(node),
                "input": [[f"{o.exact} {t}" for o, t in zip(cols, types)] for cols, types in inputs],
                "columns": [[f"{o.shown} {t}" for o, t in zip(cols, types)] for cols, types in inputs],
                "output": _types(node.schema),
                "droppable": isinstance(node, WatermarkAssignerNode)}
            calls = getattr(node, "aggs", None)
            if calls:
                read = [[] if c.arg is None else list(range(c.arg, c.arg + (argument_count(c.func) or 1)))
                        for c in calls]
                out[node.id] = _named_arguments(out[node.id], read)
                out[node.id] = _same_state(_accumulator_formats(out[node.id], node))
        else:
            continue
        out[node.id]["sinks"] = sorted(sinks[id(node)])
        out[node.id]["job_sinks"] = job_sinks
        if node.stateful and not isinstance(node, ScanNode):
            passed = [origins.filters(i) for i in node.inputs]
            out[node.id]["rows"] = [[f.exact for f in fs] for fs in passed]
            out[node.id]["filters"] = [[f.shown for f in fs] for fs in passed]
    _add_twins(out)
    return out


def recorded_signatures(recorded: dict[str, dict] | None) -> dict[str, dict] | None:
    """A checkpoint's ``operators`` in this version's form, to compare with :func:`state_signatures`.

    Checkpoints of StreamSQL up to 735568b name an aggregate call's argument by its input position
    (``"arg": 2``, the column in ``input``), where every call had argument columns of its own,
    consecutive, in the order of the calls. Such a signature is rewritten as :func:`state_signatures`
    records it now (:func:`_named_arguments`): an unchanged ``SELECT k, AVG(v), MAX(v)`` restores its
    state though both calls now read one column. A call's arguments are the columns up to the next
    call's, as recorded; only the last call's count comes from its function (at most the columns
    left: an OVER aggregate's passed columns follow it), so a Python aggregate whose arity changed
    since the checkpoint reads, before the last call, as the call it was (another state).

    A parallel task's ``layout``, which names its run's key-group assignment
    (:func:`~streamsql.checkpoint.operators.mark_layouts`), is read back as the layout version
    alone: the assignment is checked on its own. Other signatures are returned as they are.
    """
    if recorded is None:
        return None
    return {op: _same_state(_current_form(unmarked(sig))) for op, sig in recorded.items()}


#: Aggregate functions whose state is another's: an AVG of integers rewritten by Flink's
#: AggregateReduceFunctionsRule (:class:`~streamsql.functions.aggregates.AvgOfSum`: its sum wrapped to
#: the argument's type when it divides) keeps AVG's accumulator, so a checkpoint of either restores
#: into the other (StreamSQL up to xfail36 planned it as AVG).
_SAME_STATE = {"avg_of_sum": "avg", "avg_of_sum_distinct": "avg_distinct"}
_INTEGER_TYPES = ("TINYINT", "SMALLINT", "INT", "INTEGER", "BIGINT")


def _same_state(sig: dict) -> dict:
    """``sig`` with each integer call of :data:`_SAME_STATE` under the name of its state's function."""
    params = sig.get("parameters") if isinstance(sig, dict) else None
    calls = params.get("aggs") if isinstance(params, dict) else None
    if not isinstance(calls, list):
        return sig
    renamed = [{**c, "func": _SAME_STATE[c["func"]]}
               if isinstance(c, dict) and c.get("func") in _SAME_STATE
               and str(c.get("out_type", "")).split(" ")[0] in _INTEGER_TYPES else c
               for c in calls]
    return {**sig, "parameters": {**params, "aggs": renamed}} if renamed != calls else sig


def _current_form(sig: dict) -> dict:
    """One recorded signature with positional aggregate arguments named (see :func:`recorded_signatures`)."""
    params = sig.get("parameters") if isinstance(sig, dict) else None
    calls = params.get("aggs") if isinstance(params, dict) else None
    inputs = sig.get("input") if isinstance(sig, dict) else None
    if not (isinstance(calls, list) and calls and all(isinstance(c, dict) for c in calls)
            and isinstance(inputs, list) and len(inputs) == 1 and isinstance(inputs[0], list)):
        return sig
    starts = [c.get("arg") for c in calls]
    if not all(a is None or (isinstance(a, int) and not isinstance(a, bool)) for a in starts):
        return sig  # named already (lists)
    read = []
    for j, (call, start) in enumerate(zip(calls, starts)):
        if start is None:
            read.append([])
            continue
        later = [a for a in starts[j + 1:] if a is not None and a > start]
        if later:  # the columns up to the next call's: what the call read then, whatever its arity now
            n = min(later) - start
        else:  # the last call: passed columns may follow it (OVER), so its arity, within the input
            n = _recorded_argument_count(call.get("func"))
            n = len(inputs[0]) - start if n is None else min(n, len(inputs[0]) - start)
        read.append(list(range(start, start + n)))
    return _named_arguments(sig, read)


def _recorded_argument_count(func: Any) -> int | None:
    """:func:`argument_count` of a recorded function name (a Python aggregate's is its stable name)."""
    if not isinstance(func, str):
        return None
    n = argument_count(func)
    if n is None:  # registered in this process under its numbered name (udf_names)
        n = next((argument_count(f) for f in list(FUNCTIONS) if stable_sql(f) == func), None)
    return n


def _named_arguments(sig: dict, read: list[list[int]]) -> dict:
    """``sig`` with each aggregate call's ``arg`` the ``input`` entries of the positions it reads.

    ``read``: per call of ``parameters["aggs"]``, its input positions. Those positions leave
    ``input`` (and ``columns``, shown in messages), but for the keys' and the time column's
    (``num_keys``, ``ts_index``, which index the positions before them). ``sig`` as it is when a
    position is out of range (a malformed record: it differs from every plan's).
    """
    params = sig["parameters"]
    inputs = sig["input"][0]
    if any(not 0 <= i < len(inputs) for cols in read for i in cols):
        return sig
    keep = set(range(params.get("num_keys") or 0))
    if isinstance(params.get("ts_index"), int):
        keep.add(params["ts_index"])
    gone = {i for cols in read for i in cols} - keep
    named = [{**call, "arg": [inputs[i] for i in cols]} for call, cols in zip(params["aggs"], read)]
    out = {**sig, "parameters": {**params, "aggs": named},
           "input": [[c for i, c in enumerate(inputs) if i not in gone]]}
    shown = sig.get("columns")
    if isinstance(shown, list) and len(shown) == 1 and len(shown[0]) == len(inputs):
        out["columns"] = [[c for i, c in enumerate(shown[0]) if i not in gone]]
    return out


def _accumulator_formats(sig: dict, node: PlanNode) -> dict:
    """``sig`` with ``"accumulator": n`` in each call whose state has format ``n`` (not the first).

    From the function's :meth:`~streamsql.functions.aggregate_function.AggregateFunction.accumulator_format`,
    for the form this node keeps: object accumulators, except a TUMBLE, HOP or CUMULATE window's
    slices (DuckDB partial states); fixed-width ones in a GROUP BY whose calls all have them
    (:func:`~streamsql.functions.accumulators.fixed_width_supported`). Calls of the first format add
    nothing, so signatures recorded before a format changed stay equal to today's where it did not.
    """
    if isinstance(node, WindowAggNode) and node.spec.kind != "SESSION":
        return sig
    fixed = node.kind == "group-agg" and fixed_width_supported(node.aggs, node.inputs[0].schema)
    formats = [FUNCTIONS[c.func].accumulator_format(c, fixed) if c.func in FUNCTIONS else None
               for c in node.aggs]
    if not any(formats):
        return sig
    params = sig["parameters"]
    aggs = [{**call, "accumulator": f} if f else call for call, f in zip(params["aggs"], formats)]
    return {**sig, "parameters": {**params, "aggs": aggs}}


def _add_twins(signatures: dict[str, dict[str, Any]]) -> None:
    """Give each signature with ``rows`` its ``twins``: the ``rows`` of the others of equal compared parts."""
    groups: dict[str, list[dict[str, Any]]] = {}
    for sig in signatures.values():
        if "rows" in sig:
            key = json.dumps([sig.get(p) for p in PARTS], sort_keys=True)
            groups.setdefault(key, []).append(sig)
    for group in groups.values():
        for sig in group:
            sig["twins"] = [other["rows"] for other in group if other is not sig]


def _sinks_reached(order: list[PlanNode]) -> dict[int, set[str]]:
    """Per node of ``order`` (:func:`walk`'s, inputs first), the sink tables its output reaches."""
    reached: dict[int, set[str]] = {id(n): set() for n in order}
    for node in reversed(order):  # readers before their inputs
        if isinstance(node, SinkNode) and not isinstance(node, ExchangeSinkNode):
            reached[id(node)].add(node.table.name)
        for i in node.inputs:
            reached[id(i)] |= reached[id(node)]
    return reached


@dataclasses.dataclass(frozen=True)
class _Origin:
    """Where a column comes from.

    ``exact`` is compared (DuckDB SQL over table columns); ``shown`` is the same in Flink SQL
    where the planner kept it, for messages only.
    """

    exact: str
    shown: str


class _Origins:
    """Where each output column of a node comes from (memoized per node)."""

    def __init__(self):
        self._memo: dict[int, list[_Origin]] = {}
        self._filters: dict[int, list[_Origin]] = {}

    def filters(self, node: PlanNode) -> list[_Origin]:
        """The filters (WHERE, HAVING) the rows of ``node``'s output passed, as origins, sorted, once each."""
        got = self._filters.get(id(node))
        if got is None:
            found = {f.exact: f for i in node.inputs for f in self.filters(i)}
            if isinstance(node, CalcNode) and node.query.condition is not None:
                inner = dict(zip(node.query.input_schema.names, self.of(node.inputs[0])))
                cond = node.query.condition
                made = _Origin(_substitute(cond, {k: o.exact for k, o in inner.items()}), _shown(cond, inner))
                found[made.exact] = made
            got = self._filters[id(node)] = [found[k] for k in sorted(found)]
        return got

    def of(self, node: PlanNode) -> list[_Origin]:
        """Per output column of ``node``: its origin (see module docstring)."""
        got = self._memo.get(id(node))
        if got is None:
            got = self._memo[id(node)] = self._compute(node)
        return got

    def _compute(self, node: PlanNode) -> list[_Origin]:
        names = node.schema.names
        if isinstance(node, ValuesNode):
            made = f"VALUES[{_digest(node.rows)}]"
            return [_Origin(f"{made}.{n}", f"VALUES.{n}") for n in names]
        if isinstance(node, ScanNode) and not isinstance(node, ExchangeSourceNode):
            return [_Origin(f"{node.table.name}.{n}", f"{node.table.name}.{n}") for n in names]
        if isinstance(node, CalcNode):
            inner = dict(zip(node.query.input_schema.names, self.of(node.inputs[0])))
            return [_Origin(_substitute(expr, {k: o.exact for k, o in inner.items()}), _shown(expr, inner))
                    for _, expr in node.query.items]
        if isinstance(node, UnionNode):
            per_input = [self.of(i) for i in node.inputs]
            return [_Origin(f"UNION({', '.join(cols[c].exact for cols in per_input)})",
                            f"UNION({', '.join(cols[c].shown for cols in per_input)})")
                    for c in range(len(names))]
        kept: list[_Origin] = []
        if len(node.inputs) == 1:  # leading columns passed through under their names (a rank's rows)
            inner, origins = node.inputs[0].schema.names, self.of(node.inputs[0])
            for out_name, in_name, origin in zip(names, inner, origins):
                if out_name != in_name:
                    break
                kept.append(origin)
        if isinstance(node, WindowTableFunctionNode):
            # the origin compared keeps the spelling checkpoints recorded (60 s), shown is EXPLAIN's (1 min)
            made, shown = node.spec.describe(node.rowtime, seconds_text), node.spec.describe(node.rowtime)
        elif node.stateful:  # what its state means is its own signature
            made = shown = node.id
        else:  # a LATERAL TABLE, a lookup join: no signature of its own, so what it computes from what
            shown = node.describe()
            reads = [o.exact for i in node.inputs for o in self.of(i)]
            made = f"{node.id}[{_digest([_parameters(node), reads])}]"
        return kept + [_Origin(f"{made}.{c}", f"{shown}.{names[c]}") for c in range(len(kept), len(names))]


def _parameters(node: PlanNode) -> dict[str, Any]:
    """The node's fields that shape what it computes or keeps, as canonical JSON values."""
    return {f.name: _canonical(getattr(node, f.name)) for f in dataclasses.fields(node)
            if f.name not in _NOT_STATE and not (f.name in _ONLY_WHEN_SET and not getattr(node, f.name))}


def _digest(value: Any) -> str:
    """A short, process-independent hash of a canonical JSON value (for origins that would be long)."""
    text = json.dumps(_canonical(value), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _substitute(expr: str, origins: dict[str, str]) -> str:
    """``expr`` (DuckDB SQL over quoted input columns) with each column replaced by its origin."""
    def origin(m: re.Match) -> str:
        name = m.group(1).replace('""', '"')
        return origins.get(name, m.group(0))
    return stable_sql(_QUOTED.sub(origin, str(expr)))


def _shown(expr: str, inner: dict[str, _Origin]) -> str:
    """``expr`` for messages: its Flink SQL (where kept) with input column names replaced by their origins.

    Approximate on purpose (a bare name inside a string literal would be replaced too): never compared.
    """
    flink = getattr(expr, "flink", None)
    if flink is None:
        return _substitute(expr, {k: o.shown for k, o in inner.items()})
    return _BARE.sub(lambda m: inner[m.group(0)].shown if m.group(0) in inner else m.group(0), flink)


def _types(schema: pa.Schema) -> list[str]:
    """The SQL types of ``schema``'s columns (``INT``, ``BIGINT NOT NULL``), as text."""
    try:
        return [str(f.type) for f in Schema.from_arrow(schema)]
    except SqlError:  # a type with no SQL name here: Arrow's, still the same in every process
        return [str(f.type) for f in schema]


def _canonical(value: Any) -> Any:
    """``value`` as plain JSON values, the same in every process (sets sorted, no addresses)."""
    if isinstance(value, str):
        return stable_sql(value)  # a user function's name numbers the process's functions
    if value is None or isinstance(value, (bool, int, float)):
        return value
    if isinstance(value, TableDef):  # its name only: options hold passwords, and go to every _metadata
        return {"": "TableDef", "name": value.name, "connector": value.connector}
    if isinstance(value, enum.Enum):
        return value.name
    if isinstance(value, SqlType):
        return str(value)  # the SQL type's full text: BIGINT NOT NULL, DECIMAL(10, 2), ROW<...>
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = {f.name: _canonical(getattr(value, f.name)) for f in dataclasses.fields(value)
                  if f.name not in _NOT_STATE}
        return {"": type(value).__name__, **fields}
    if isinstance(value, dict):
        return {str(k): _canonical(v) for k, v in sorted(value.items(), key=lambda kv: str(kv[0]))}
    if isinstance(value, (set, frozenset)):
        return sorted((_canonical(v) for v in value), key=repr)
    if isinstance(value, (list, tuple)):
        return [_canonical(v) for v in value]
    if isinstance(value, (pa.Schema, pa.DataType)):
        return str(value)
    # An object of no value form (a function, a connector): its kind only, never its address.
    name = getattr(value, "name", None)
    return f"<{type(value).__name__}{f' {name}' if isinstance(name, str) else ''}>"
