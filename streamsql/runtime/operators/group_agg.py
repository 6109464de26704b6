r"""GroupAggregate: ``GROUP BY`` without a window, over an insert-only or changelog input.

Semantics follow Flink's GroupAggFunction: the result is an updating table. For each key whose
result changed, a batch emits ``+I`` (first row of the key), ``-U``/``+U`` (a change; ``+U`` alone
when the planner found that no consumer needs -U rows, :mod:`streamsql.plan.update_kinds`), or
``-D`` (the key's last row was retracted); a result equal to the previous one by Flink's
equaliser (-0.0 equals 0.0, NaN nothing) emits nothing.
Emission is per batch rather than per row (like Flink's mini-batch aggregation): the folded
changelog is the same, except where the batch is cut first
(:mod:`~streamsql.runtime.operators.group_agg_rows`: a zero's sign, a key emptied and started
again).

The aggregates are the objects of :mod:`streamsql.functions.aggregates`, composed by
:class:`~streamsql.functions.accumulators.Aggregates` with a row count as state 0 (a key whose
count reaches 0 is deleted). Per batch, DuckDB computes their partial states per key (signed by
row kind), then the accumulators of the batch's distinct keys are looked up in a write-behind
cache of decoded accumulators (:class:`~streamsql.state.cache.WriteBehindCache` over
:class:`~streamsql.state.cache.ObjectValues`, at most ``'state.cache.max-entries'`` keys,
default :data:`DEFAULT_CACHE_ENTRIES`); misses are read from keyed state with one multi-get.
Python aggregates (:mod:`streamsql.functions.udaf`) have no partial state: their accumulators
are folded from the batch's rows in order (``accumulate`` / ``retract`` per row, as Flink), and
an accumulator state cannot store fails the job naming the function when it is written back.
With a state TTL (``'table.exec.state.ttl'``, :mod:`streamsql.state.ttl`)
a key whose accumulators were not written for the TTL has no state: its next row starts it
again (``+I``), as Flink's GroupAggFunction after state cleanup; and, as Flink does when state
cleaning is on, a key whose result did not change still emits ``-U``/``+U`` (so downstream state
of the key is refreshed too). Changed accumulators are encoded and written back (one write
batch) only when evicted and at every checkpoint (``snapshot_state``, which runs before the
backend snapshot), so a checkpoint
holds exactly the state after the rows before its barrier. When every call has a fixed-width
form, :func:`~streamsql.runtime.operators.group_agg_columnar.create_group_agg` picks the
columnar operator instead.

State: per key, ``kg + key`` (:func:`~streamsql.state.layout.encode_keys` of the key columns,
``kg`` its key group) → :data:`GROUP_AGG_OBJECTS`, the list of the states' object accumulators
(row count first, see :mod:`streamsql.functions.aggregates`) as tagged msgpack; the columnar
operator writes another format under the same keys, so a snapshot of one restored into the
other fails clearly (:class:`~streamsql.state.layout.StateFormatError`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import numpy as np
import pyarrow as pa

from streamsql.core.elements import Batch, Element, RowKind
from streamsql.core.errors import ExecutionError
from streamsql.core.py_values import py_values
from streamsql.functions import python_functions
from streamsql.functions.accumulators import Aggregates, key_values
from streamsql.functions.aggregates import DISTINCT_FUNCTIONS, REDUCED_FUNCTIONS, AggSpec
from streamsql.functions.distinct_ttl import CountDistinctTtl
from streamsql.functions.variance import VARIANCE_FUNCTIONS
from streamsql.runtime.evaluator import query_table
from streamsql.runtime.operators.base import Operator, OperatorContext, state_ttl
from streamsql.runtime.operators.group_agg_rows import flink_parts, results_equal
from streamsql.state.cache import ObjectValues, ValueStore, WriteBehindCache
from streamsql.state.layout import ValueFormat, encode_keys, group_by_items
from streamsql.state.ttl import TtlKeyedState

#: The value of a key of the general GROUP BY: its accumulator list.
GROUP_AGG_OBJECTS = ValueFormat("group-agg/objects", 1)

#: Default of ``'state.cache.max-entries'``: decoded accumulators kept in memory per GROUP BY.
DEFAULT_CACHE_ENTRIES = 100_000


def cache_entries(config: dict | None) -> int:
    """``'state.cache.max-entries'``: keys whose accumulators a GROUP BY keeps decoded in memory.

    Raises:
        ConfigError: not an integer >= 0.
    """
    raw = (config or {}).get("state.cache.max-entries")
    try:
        size = DEFAULT_CACHE_ENTRIES if raw in (None, "") else int(str(raw).strip())
    except ValueError:
        size = -1
    if size < 0:
        from streamsql.core.errors import ConfigError

        msg = f"'state.cache.max-entries' = '{raw}' must be an integer >= 0"
        raise ConfigError(msg)
    return size


def _encoder(python: list) -> Callable[[list], bytes]:
    """The accumulator encoder of a GROUP BY with Python aggregates ``python`` (user aggregates).

    Raises (when called):
        ExecutionError: an accumulator that state cannot store, naming the functions.
    """

    def encode(acc: list) -> bytes:
        try:
            return GROUP_AGG_OBJECTS.encode(acc)
        except TypeError as e:
            names = ", ".join(f.label() for f in python)
            msg = (f"An accumulator of {names} cannot be stored in state ({e}): an accumulator must be a "
                   "list, tuple or dict of SQL values")
            raise ExecutionError(msg) from None

    return encode


def _quoted(schema: pa.Schema, n: int) -> list[str]:
    return ['"' + schema.names[i].replace('"', '""') + '"' for i in range(n)]


_VARIANCE_DISTINCT = frozenset(c.func for c in VARIANCE_FUNCTIONS if c.func.endswith("_distinct"))
#: The calls over a distinct view: SUM / AVG(DISTINCT) (also as Flink's AggregateReduceFunctionsRule
#: leaves them) and the variance family's DISTINCT.
_DISTINCT_VIEWS = frozenset(DISTINCT_FUNCTIONS.values()) | _VARIANCE_DISTINCT \
    | {REDUCED_FUNCTIONS[f] for f in DISTINCT_FUNCTIONS.values()}
"""VAR_*/STDDEV_*(DISTINCT ...): a distinct view, whose values expire with the key only."""


class GroupAggBase(Operator):
    """What both GROUP BY operators share: the composed calls, their partial query, the cache.

    The calls are composed with the row count as state 0; per batch DuckDB computes the signed
    partial states per key (:meth:`_partials`); the accumulators live in a
    :class:`~streamsql.state.cache.WriteBehindCache` over the value store of :meth:`_new_values`,
    flushed at every checkpoint.

    Args:
        num_keys: the first ``num_keys`` input columns are the grouping key.
        aggs: the aggregate calls; output columns = keys then one per aggregate.
        input_schema: Arrow schema of input batches.
        output_schema: Arrow schema of output batches.
        state_ttl_ms: the TTL of a STATE_TTL hint (ms, 0: never); None: ``'table.exec.state.ttl'``.
        update_before: emit a change as -U old, +U new; False: as +U new alone (no consumer
            needs -U rows: Flink's UPDATE_BEFORE elimination, :mod:`streamsql.plan.update_kinds`).
    """

    _con = python_functions.LazyConnection()  # opened by the first batch that needs DuckDB

    stateful = True

    def __init__(self, num_keys: int, aggs: list[AggSpec], input_schema: pa.Schema, output_schema: pa.Schema,
                 state_ttl_ms: int | None = None, update_before: bool = True):
        self.num_keys = num_keys
        self.update_before = update_before
        self.state_ttl_ms = state_ttl_ms
        self.aggs = aggs
        self.input_schema = input_schema
        self.output_schema = output_schema
        self.aggregates = Aggregates(aggs, input_schema, list(output_schema)[num_keys:], "GROUP BY",
                                     row_count=True)
        if len({a.arg for a in aggs if a.func == "count_distinct"}) > 1:
            # Flink's filtered calls over one value share that value's distinct-view entry (and its
            # write time); here a filtered call is a call over its own CASE expression.
            self.state_ttl_missing = "a GROUP BY with several COUNT(DISTINCT ...) calls"
        if any(a.func in _DISTINCT_VIEWS for a in aggs):
            # Flink's distinct view expires its values on their own (as CountDistinctTtl does)
            self.state_ttl_missing = ("a GROUP BY with SUM(DISTINCT ...), AVG(DISTINCT ...) or "
                                      "VAR_*/STDDEV_*(DISTINCT ...)")
        keys = _quoted(input_schema, num_keys)
        # rows one batch groups share one state key: DOUBLE keys by Java's equals, as encode_keys
        group_by = group_by_items(keys, input_schema.types[:num_keys])
        group = f" GROUP BY {', '.join(group_by)}" if keys else ""
        items = self.aggregates.partial_items("__sign", objects=True)
        self._partial_sql = f"SELECT {', '.join(keys + items)} FROM __in{group}"
        self.cache: WriteBehindCache | None = None

    def _new_values(self) -> ValueStore:
        """The value store of the accumulators (what a cache slot holds, and its encoding)."""
        raise NotImplementedError

    def open(self, ctx: OperatorContext) -> None:
        """Start with an empty accumulator cache (restored state is in the backend).

        Raises:
            ConfigError: a bad ``'state.cache.max-entries'`` or ``'table.exec.state.ttl'``.
        """
        super().open(ctx)
        self.values = self._new_values()
        self.ttl = state_ttl(ctx, self.state_ttl_ms)
        self.state = TtlKeyedState(ctx.state, self.ttl) if self.ttl else ctx.state
        self.cache = self._new_cache(self.state, cache_entries(ctx.config))

    def _new_cache(self, state, max_entries: int):
        """Where the accumulators live: a write-behind cache over keyed state."""
        return WriteBehindCache(state, self.values, max_entries)

    def snapshot_state(self, checkpoint_id: int) -> None:
        """Write back every changed accumulator before the backend is snapshotted (and purge expired ones)."""
        self.cache.flush()
        if self.ttl:
            self.state.purge()

    def process_batch(self, batch: Batch, input_index: int) -> list[Element]:
        """Fold ``batch`` into keyed state and emit the changes of the keys it touched.

        In one fold, or in the parts :func:`~streamsql.runtime.operators.group_agg_rows.flink_parts`
        cuts it into where one fold would not give Flink's row-by-row answer.

        Raises:
            ExecutionError: an integer SUM left the BIGINT range.
        """
        parts = flink_parts(batch, self.num_keys, self.aggregates, self._old_counts)
        if parts is None:
            return self._fold_batch(batch)
        return [e for part in parts for e in self._fold_batch(part)]

    def _fold_batch(self, batch: Batch) -> list[Element]:
        """Fold ``batch`` into keyed state, emit the changes of the keys it touched (per batch)."""
        raise NotImplementedError

    def _old_counts(self, keys: pa.Table, rows: np.ndarray) -> np.ndarray:
        """The row count in state of each row of ``keys`` (distinct keys first), 0 where none."""
        raise NotImplementedError

    def _partials(self, batch: Batch) -> tuple[pa.Table, pa.Table]:
        """``(batch's table with its __sign column, partial states per key)``.

        Raises:
            ExecutionError: an integer SUM of the batch left the BIGINT range.
        """
        table = batch.table.append_column("__sign", pa.array(batch.signs(), pa.int8()))
        if self.aggregates.ordered and "_con" not in vars(self):
            # partials that keep the rows' order (a floating MIN's first zero, SUM's value list):
            # threads is a database's setting, so a database of its own, not the shared one's cursor
            con = python_functions.connect()
            con.execute("SET threads = 1")
            self._con = con
        with self.aggregates.overflow_guard():
            return table, query_table(self._con, self._partial_sql, table)


class GroupAggOperator(GroupAggBase):
    """Keyed, updating aggregation over object accumulators (see module docstring).

    Args: as :class:`GroupAggBase`, and
        updating_input: the input is a changelog (under state TTL a COUNT(DISTINCT x)'s values
            are then stamped on every change, :mod:`streamsql.functions.distinct_ttl`).
    """

    def __init__(self, num_keys: int, aggs: list[AggSpec], input_schema: pa.Schema, output_schema: pa.Schema,
                 state_ttl_ms: int | None = None, updating_input: bool = False, update_before: bool = True):
        super().__init__(num_keys, aggs, input_schema, output_schema, state_ttl_ms, update_before)
        self.updating_input = updating_input
        # The multiset states' net multiplicity of each (key, value), one query per argument type.
        keys = _quoted(input_schema, num_keys)
        by = group_by_items(keys, input_schema.types[:num_keys])
        self._multisets = self.aggregates.multiset_queries(keys, "__sign", by)

    def open(self, ctx: OperatorContext) -> None:
        """As the base; under state TTL a COUNT(DISTINCT x)'s values expire on their own, as Flink's.

        Raises:
            ConfigError: a bad ``'state.cache.max-entries'`` or ``'table.exec.state.ttl'``.
        """
        super().open(ctx)
        if self.ttl and any(a.func == "count_distinct" for a in self.aggs):
            # same states in the same order (so the same queries), the distinct one with write times
            specs = [replace(a, func=CountDistinctTtl.func) if a.func == "count_distinct" else a
                     for a in self.aggs]
            self.aggregates = Aggregates(specs, self.input_schema, list(self.output_schema)[self.num_keys:],
                                         "GROUP BY", row_count=True)
            for s in self.aggregates.states:
                if isinstance(s, CountDistinctTtl):
                    s.configure(self.ttl, self.updating_input)

    def _new_values(self) -> ObjectValues:
        python = [s.function for s in self.aggregates.states if s.rowwise]
        encode = _encoder(python) if python else GROUP_AGG_OBJECTS.encode
        return ObjectValues(encode, GROUP_AGG_OBJECTS.decode)

    def _old_counts(self, keys: pa.Table, rows: np.ndarray) -> np.ndarray:
        """The row count (state 0) of each key's accumulators, 0 without them."""
        accs = self.values.get(self.cache.slots(encode_keys(keys.columns[:self.num_keys], keys.num_rows)))
        return np.array([0 if a is None else a[0] for a in accs], np.int64)

    def _fold_batch(self, batch: Batch) -> list[Element]:
        """Fold ``batch`` into keyed state and emit the changes of the keys it touched.

        Raises:
            ExecutionError: an integer SUM left the BIGINT range.
        """
        table, res = self._partials(batch)
        aggregates = self.aggregates
        nk = self.num_keys
        key_tuples = list(zip(*(py_values(res.column(i)) for i in range(nk)))) if nk else [()] * res.num_rows
        encoded = encode_keys(res.columns[:nk], res.num_rows)
        slots = self.cache.slots(encoded)
        accs = self.values.get(slots)
        result = aggregates.result
        olds = [result(a) if a is not None else None for a in accs]
        new_acc = aggregates.new
        news = [new_acc() if a is None else a for a in accs]
        aggregates.fold(news, res)
        index = {k: i for i, k in enumerate(encoded)} if self._multisets or aggregates.rowwise else None
        if aggregates.rowwise:  # Python aggregates: every row, in order (Flink calls them per row)
            rows = [index[k] for k in encode_keys(table.columns[:nk], table.num_rows)] if nk \
                else [0] * table.num_rows
            aggregates.fold_rows(news, table, rows, batch.signs().tolist(), batch.origin)
        for query in self._multisets:
            for state, part in query.parts(query_table(self._con, query.sql, table)):
                rows = [index[k] for k in encode_keys(part.columns[:nk], part.num_rows)]
                aggregates.fold_multiset(state, news, rows, key_values(part.column(nk)),
                                         py_values(part.column(nk + 1)))

        out_rows, out_kinds = [], []
        INSERT, DELETE = RowKind.INSERT, RowKind.DELETE  # noqa: N806
        BEFORE, AFTER = RowKind.UPDATE_BEFORE, RowKind.UPDATE_AFTER  # noqa: N806
        refresh = self.ttl is not None  # an unchanged result is emitted again (Flink, state TTL on)
        ub = self.update_before
        for i, key in enumerate(key_tuples):
            acc, old = news[i], olds[i]
            if acc[0] <= 0:
                news[i] = None  # deleted (once written back)
                if old is not None:
                    out_rows.append(key + old)
                    out_kinds.append(DELETE)
                continue
            new = result(acc)
            if old is None:
                out_rows.append(key + new)
                out_kinds.append(INSERT)
            elif (refresh or not results_equal(old, new)) and ub:
                out_rows += [key + old, key + new]
                out_kinds += [BEFORE, AFTER]
            elif refresh or not results_equal(old, new):
                out_rows.append(key + new)
                out_kinds.append(AFTER)
        self.values.put(slots, news)
        self.cache.touch(slots)
        self.cache.evict()
        if not out_rows:
            return []
        columns = list(zip(*out_rows))
        arrays = [pa.array(list(col), type=f.type) for col, f in zip(columns, self.output_schema)]
        return [Batch(pa.Table.from_arrays(arrays, schema=self.output_schema), np.array(out_kinds, np.int8))]
