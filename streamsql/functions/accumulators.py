"""The aggregate calls of one operator, composed over whole batches.

:class:`Aggregates` turns an operator's calls into aggregate function objects
(:mod:`streamsql.functions.aggregates`), one *state* per call, but calls of one function without
an argument share one — so ``COUNT(*)`` twice, or a GROUP BY's row count and its ``COUNT(*)``,
share one state — and offers
each form for all of them at once: the DuckDB partial / combine select items, the multiset
queries, the fixed-width record (a numpy structured dtype) with its batch fold and results, the
object accumulators (a list, one item per state) with fold, merge and result, and the Arrow
result columns of combined partial states.

Partial state columns are named ``__p{state}_{k}``, fixed-width fields ``p{state}_{name}``.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from operator import itemgetter

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from streamsql.core.errors import PlanError
from streamsql.core.java_hash import double_key
from streamsql.core.py_values import py_values
from streamsql.core.types import hashable
from streamsql.functions.aggregate_function import AggregateFunction, overflow_error
from streamsql.functions.aggregates import FUNCTIONS, AggSpec, CountStar, Sum
from streamsql.state.layout import group_by_items

_ROW_COUNT = AggSpec("count_star", None, CountStar.result_type(None))


class Aggregates:
    """The aggregate calls of one operator (see module docstring).

    Args:
        specs: the calls (``arg`` = index of the argument column in the input).
        input_schema: Arrow schema of the input.
        out_fields: the result field of each call (its Arrow type; its name, for errors).
        context: the operator in error messages (``GROUP BY``, ``Window``).
        row_count: keep the row count as state 0 (COUNT(*) calls share it): a GROUP BY needs it
            to know when a key's last row is retracted.

    Attributes:
        states: the aggregate function objects, one per call (calls without an argument: per function).
        calls: the state of each call.
    """

    def __init__(self, specs: list[AggSpec], input_schema: pa.Schema, out_fields: list[pa.Field],
                 context: str, row_count: bool = False):
        names = input_schema.names
        self.states: list[AggregateFunction] = []
        self.calls: list[int] = []
        index: dict[str | int, int] = {}
        calls = [(_ROW_COUNT, pa.field("the row count", pa.int64()))] if row_count else []
        calls += zip(specs, out_fields)
        for n, (spec, f) in enumerate(calls):
            # Two calls over one column (MAX(v), MAX(DISTINCT v): the planner shares an argument's
            # column) keep a state each: the states stay those of checkpoints written when every
            # call had a column of its own.
            key = spec.func if spec.arg is None else n
            if key not in index:
                index[key] = len(self.states)
                arg = None if spec.arg is None else '"' + names[spec.arg].replace('"', '""') + '"'
                arg_type = None if spec.arg is None else input_schema.field(spec.arg).type
                cls = FUNCTIONS[spec.func]
                self.states.append(cls(len(self.states), spec, arg, arg_type, f.type, f.name, context))
                if cls.rowwise:  # a Python aggregate reads all its argument columns
                    self.states[-1].bind(names)
            self.calls.append(index[key])
        if row_count:
            self.calls.pop(0)
        self.context = context
        self.specs = specs
        if all(self.states[j].scalar for j in self.calls):  # every result is an accumulator item
            # itemgetter() of no index is an error: a GROUP BY without aggregates has no results
            self.result = itemgetter(*self.calls) if len(self.calls) > 1 else _single(self.calls)
        self._scalars = all(s.scalar for s in self.states)
        self.rowwise = [j for j, s in enumerate(self.states) if s.rowwise]
        #: Some partial state depends on the rows' order (``AggregateFunction.ordered``): run the
        #: DuckDB queries on one thread (:func:`ordered_connection`).
        self.ordered = any(s.ordered for s in self.states)
        self._template = [s.create() for s in self.states]

    # -- DuckDB ------------------------------------------------------------------------------------

    def partial_items(self, sign: str | None, objects: bool) -> list[str]:
        """Select items ``expr AS __p{j}_{k}`` of every state's partial state.

        Args:
            sign: the row-sign column over a changelog (None: insert-only).
            objects: for the object and fixed-width forms, whose multiset states read
                :meth:`multiset_queries` instead, and whose folds take ordered partials
                (``ordered_partial``: a floating-point SUM's values in row order).

        Raises:
            PlanError: without ``objects``, a call that has no combinable partial state.
        """
        out = []
        for s in self.states:
            if objects and (s.multiset or s.rowwise):
                continue
            if not objects and not s.combinable:
                msg = f"{s.func.upper()} is not supported in a window aggregate"
                raise PlanError(msg)
            items = s.ordered_partial(sign) if objects else s.partial(sign)
            out += [f"{e} AS {c}" for e, c in zip(items, s.columns)]
        return out

    def combine_items(self) -> list[str]:
        """Select items ``expr AS __p{j}_{k}`` that combine partial states (over those columns)."""
        return [f"{e} AS {c}" for s in self.states for e, c in zip(s.combine(), s.columns)]

    def multiset_queries(self, group: list[str], sign: str | None,
                         group_by: list[str] | None = None) -> list[MultisetQuery]:
        """The queries of the multiset states' ``(group..., value, net multiplicity)`` over ``__in``.

        One query per argument type, not per state: the argument columns of one type are unnested
        side by side, so ``COUNT(DISTINCT a) FILTER (...)`` four times over two columns (Nexmark's
        q15) costs one DuckDB query per batch instead of eight (each has ~1 ms of fixed cost).
        ``group_by`` (default ``group``) are the GROUP BY items of the group columns; a floating
        value is grouped as Java's ``Double.equals`` (-0.0 apart, :func:`group_by_items`), as Flink's
        distinct map keys it, and read back with :func:`key_values`. A state whose result depends on
        the order its values come and go (``ordered``: a floating SUM(DISTINCT x)'s running sum) has
        a query of its own that keeps every row, in the input's order, with its sign for multiplicity
        (the operator's DuckDB runs one thread for it: :attr:`ordered`).
        """
        by_type: dict[str, dict[str, list[int]]] = {}
        types: dict[str, pa.DataType] = {}
        out = []
        for s in self.states:
            if s.multiset and s.ordered:  # every row in order, its sign its multiplicity
                row_sign = f"{sign}::BIGINT" if sign else "1::BIGINT"
                sql = (f"SELECT {', '.join([*group, s.arg, row_sign])} FROM __in WHERE {s.arg} IS NOT NULL")
                out.append(MultisetQuery(sql, len(group), [(s.index,)]))
            elif s.multiset:
                by_type.setdefault(str(s.arg_type), {}).setdefault(s.arg, []).append(s.index)
                types[str(s.arg_type)] = s.arg_type
        mult = f"sum({sign})::BIGINT" if sign else "count(*)::BIGINT"
        keys = list(group if group_by is None else group_by)
        for type_name, columns in by_type.items():
            args = list(columns)
            if len(args) == 1:
                by = keys + group_by_items(args, [types[type_name]])
                sql = (f"SELECT {', '.join(group + args)}, {mult} FROM __in WHERE {args[0]} IS NOT NULL "
                       f"GROUP BY {', '.join(by)}")
            else:  # two unnests of one length are zipped: (column's code, its value) per input row
                by = keys + ["__ms_code"] + group_by_items(["__ms_value"], [types[type_name]])
                sql = (f"SELECT {', '.join(group)}{', ' if group else ''}__ms_code, __ms_value, {mult} FROM "
                       f"(SELECT *, unnest(range({len(args)}))::INTEGER AS __ms_code, "
                       f"unnest([{', '.join(args)}]) AS __ms_value FROM __in) "
                       f"WHERE __ms_value IS NOT NULL GROUP BY {', '.join(by)}")
            out.append(MultisetQuery(sql, len(group), [tuple(columns[a]) for a in args]))
        return out

    @contextmanager
    def overflow_guard(self) -> Iterator[None]:
        """Turn DuckDB's out-of-range errors of integer sums into :func:`overflow_error`.

        Raises:
            ExecutionError: a partial or combined integer sum left BIGINT.
        """
        try:
            yield
        except (duckdb.OutOfRangeException, duckdb.ConversionException) as err:
            sums = [s for s in self.states if isinstance(s, Sum) and s.kind == "i"]
            wide = [s for s in self.states if isinstance(s, Sum) and s.wide_decimal]
            if wide and ("DECIMAL" in str(err) or "HUGEINT" in str(err)):
                names = ", ".join(s.label for s in wide)
                msg = (f"{names} (a SUM / AVG of DECIMAL) left DECIMAL(38, s) in a batch's partial sum: "
                       "Flink 2.3 makes such a sum NULL and starts again from the next value, row by row; "
                       "StreamSQL follows it in GROUP BY, OVER and SESSION aggregates, not in a "
                       "TUMBLE / HOP / CUMULATE window's partial sums")
                raise overflow_error(self.context, msg) from None
            if not sums:
                raise
            if len(sums) == 1:
                raise sums[0].overflow() from None
            names = ", ".join(s.label for s in sums)
            raise overflow_error(self.context, f"one of {names} (sums) is out of the BIGINT range") from None

    def finish(self, part: pa.Table) -> list:
        """The result column of each call from combined partial states (Arrow)."""
        done = [s.finish([part.column(c) for c in s.columns]) for s in self.states]
        return [done[j] for j in self.calls]

    # -- fixed width ----------------------------------------------------------------------------

    def fixed_dtype(self) -> np.dtype | None:
        """The packed little-endian record of every state, or None if one has no fixed-width form."""
        fields = []
        for s in self.states:
            own = s.fixed_fields()
            if own is None:
                return None
            fields += [(s.field(name), t) for name, t in own]
        return np.dtype(fields)

    def partials_numpy(self, table: pa.Table, num_keys: int) -> pa.Table | None:
        """The partial states of an insert-only batch grouped by numpy, or None (DuckDB's query).

        The table DuckDB's ``SELECT keys, partial items FROM table GROUP BY keys`` gives (another
        row order), for one integer key column without NULLs when every state has a numpy
        partial form (``partial_numpy``: COUNT, MIN and MAX); no DuckDB database is opened or
        run for it, which a job's memory and CPU per row notice (``benchmarks/README.md``,
        *Issue 15's memory bars, a third time*).
        """
        if num_keys != 1 or not self.states:
            return None
        key = table.column(0)
        t = key.type
        if not pa.types.is_integer(t) or t == pa.uint64() or key.null_count:
            return None
        groups_of, groups = np.unique(key.to_numpy(), return_inverse=True)
        n = len(groups_of)
        columns = [pa.array(groups_of).cast(t)]
        names = [table.schema.names[0]]
        for s in self.states:
            values = None if s.spec.arg is None else table.column(s.spec.arg).combine_chunks()
            parts = s.partial_numpy(values, groups, n)
            if parts is None:
                return None
            columns += parts
            names += s.columns
        return pa.Table.from_arrays(columns, names=names)

    def start_fixed(self, cols: dict[str, np.ndarray], slots: np.ndarray) -> None:
        """Make the zeroed records at ``slots`` new accumulators (a floating SUM's -0.0)."""
        for s in self.states:
            s.start_fixed(cols, slots)

    def fold_fixed(self, cols: dict[str, np.ndarray], slots: np.ndarray, part: pa.Table) -> None:
        """Fold the partial states ``part`` (row i for ``slots[i]``) into the fields ``cols``.

        Raises:
            ExecutionError: an integer sum left BIGINT.
        """
        for s in self.states:
            s.fold_fixed(cols, slots, [part.column(c) for c in s.columns])

    def results_fixed(self, cols: dict[str, np.ndarray], slots: np.ndarray) -> list:
        """Per call: ``(values, validity or None)`` at ``slots``."""
        done = [s.result_fixed(cols, slots) for s in self.states]
        return [done[j] for j in self.calls]

    # -- objects --------------------------------------------------------------------------------

    def new(self) -> list:
        """An empty accumulator list (one item per state)."""
        if self._scalars:
            return self._template.copy()
        return [s.create() for s in self.states]

    def fold(self, accs: list[list], part: pa.Table) -> None:
        """Fold the partial states ``part`` (row i into ``accs[i]``), multisets excepted.

        Raises:
            ExecutionError: an integer sum left BIGINT.
        """
        for j, s in enumerate(self.states):
            if not (s.multiset or s.rowwise):
                s.fold_columns(accs, j, [part.column(c) for c in s.columns])

    def fold_multiset(self, state: int, accs: list[list], rows: list[int], values: list,
                      mults: list[int]) -> None:
        """Fold the multiset query of ``state``: ``mults[i]`` times ``values[i]`` into ``accs[rows[i]]``."""
        self.states[state].fold_multiset(accs, state, rows, values, mults)

    def fold_rows(self, accs: list[list], table: pa.Table, rows: list[int], signs: list[int],
                  origin=None) -> None:
        """Fold the input rows into the row-wise states (:attr:`rowwise`): row i into ``accs[rows[i]]``.

        Args:
            accs: the accumulator lists of the batch's keys.
            table: the input batch (the states read their argument columns from it).
            rows: per input row, the index of its key in ``accs``.
            signs: per input row, +1 (accumulate) or -1 (retract).
            origin: where input row ``n`` was read from (``Batch.origin``), for errors; or None.

        Raises:
            ExecutionError: a Python aggregate raised.
        """
        for j in self.rowwise:
            s = self.states[j]
            s.fold_rows(accs, j, [python_values(table.column(i)) for i in s.arg_indexes], rows, signs, origin)

    def merge(self, into: list, other: list) -> list:
        """Merge accumulator list ``other`` into ``into`` (returned)."""
        for j, s in enumerate(self.states):
            into[j] = s.merge(into[j], other[j])
        return into

    def result(self, acc: list) -> tuple:
        """The result of each call from an accumulator list."""
        states = self.states
        return tuple(states[j].result(acc[j]) for j in self.calls)


def fixed_width_supported(aggs: list[AggSpec], input_schema: pa.Schema) -> bool:
    """True when every call of a GROUP BY has a fixed-width form: the columnar operator keeps its state."""
    out = [pa.field(f"a{i}", input_schema.field(a.arg).type if a.arg is not None else pa.int64())
           for i, a in enumerate(aggs)]
    return Aggregates(aggs, input_schema, out, "GROUP BY", row_count=True).fixed_dtype() is not None


def _single(calls: list[int]):
    if not calls:
        return lambda acc: ()
    i = calls[0]
    return lambda acc: (acc[i],)


class MultisetQuery:
    """One query of :meth:`Aggregates.multiset_queries` and how its result splits per state.

    Args:
        sql: the query over ``__in``: ``(group..., value, mult)`` for one argument column,
            ``(group..., code, value, mult)`` for several (``code`` = the column's position).
        num_group: the number of group columns.
        states: per argument column (by code), the states that read it.
    """

    def __init__(self, sql: str, num_group: int, states: list[tuple[int, ...]]):
        self.sql, self.num_group, self.states = sql, num_group, states

    def parts(self, result: pa.Table) -> Iterator[tuple[int, pa.Table]]:
        """``(state, its rows (group..., value, mult))`` for every state, from the query's ``result``."""
        if len(self.states) == 1:
            for state in self.states[0]:
                yield state, result
            return
        g = self.num_group
        codes = result.column(g)
        rest = result.remove_column(g)
        for code, states in enumerate(self.states):
            part = rest.filter(pc.equal(codes, pa.scalar(code, pa.int32())))
            for state in states:
                yield state, part


def key_values(col: pa.Array | pa.ChunkedArray) -> list:
    """A column's values as dict keys: as :func:`python_values`, floats by Java's ``Double.equals``.

    A -0.0 or NaN becomes a :class:`~streamsql.core.java_hash.DoubleKey`, so a dict holds -0.0 apart
    from 0.0 and every NaN as one, as Flink keys them (a distinct map's values, a window's key).
    """
    if pa.types.is_floating(col.type):
        return [double_key(v) for v in col.to_pylist()]
    return python_values(col)


def python_values(col: pa.Array | pa.ChunkedArray) -> list:
    """A column's Python values; ROW/ARRAY/MAP ones as tuples (DISTINCT keeps them in sets)."""
    values = py_values(col)
    return [hashable(v) for v in values] if pa.types.is_nested(col.type) else values
