"""One object per SQL aggregate, as DataFusion's ``Accumulator`` and Flink's ``AggregateFunction``.

An aggregate function object stands for one call (an :class:`AggSpec`) over an argument column
and knows:

- its **result type** (:func:`agg_output_type`, the planner's rule);
- its **partial state** over a batch as DuckDB select items (:meth:`AggregateFunction.partial`),
  *signed* over a changelog (a ``-U``/``-D`` row retracts: its contribution is subtracted), how
  partial states **combine** (:meth:`~AggregateFunction.combine`, e.g. the slices of a window)
  and how a combined state becomes the result (:meth:`~AggregateFunction.finish`, Arrow);
- its **fixed-width form**, where it has one: numpy fields indexed by slot, folded and finished
  for a whole batch at once (:meth:`~AggregateFunction.fixed_fields`,
  :meth:`~AggregateFunction.fold_fixed`, :meth:`~AggregateFunction.result_fixed`);
- its **object form**: one Python accumulator per group (:meth:`~AggregateFunction.create`,
  :meth:`~AggregateFunction.fold` of a batch's partials, :meth:`~AggregateFunction.merge`,
  :meth:`~AggregateFunction.result`).

================= ======================== ===================== ===============================
call              partial state (combined)  fixed-width fields    object accumulator
================= ======================== ===================== ===============================
COUNT(*)          row count                 ``c`` int64           int
COUNT(x)          non-NULL count            ``c`` int64           int
SUM(x), AVG(x)    non-NULL count, sum       ``c`` int64, ``s``    ``[sum, count]``
                                            int64 or float64
MIN(x), MAX(x)    the extreme (insert-only  ``v`` int64 or        the extreme (dates and
                  input: not retractable)   float64, ``h`` int8   timestamps as integer storage)
MIN/MAX over a    none (object form only)   none                  ``{value: multiplicity}``: a
changelog                                                         retracted extreme falls back to
(``*_retract``)                                                   the next (Flink's
                                                                  MaxWithRetractAggFunction)
COUNT(DISTINCT x) distinct values (a list)  none                  ``{value: multiplicity}``
SUM(DISTINCT x),  distinct values (a list)  none                  ``[{value: multiplicity},
AVG(DISTINCT x)                                                   [sum, count]]``: a running sum
================= ======================== ===================== ===============================

Fixed-width forms exist for arguments of integer, floating-point, date or timestamp type (SUM
and AVG: integer and floating point only). Floating point follows Flink's arithmetic and order: a
SUM/AVG fold reads the batch's values as a list and adds them one by one
(:meth:`Sum.ordered_partial`; SUM of FLOAT in FLOAT), an insert-only MIN/MAX compares with Java's
``<``/``>`` and a changelog's with ``Double.compareTo`` (``tests/functions/test_float_aggs.py``).
Multiset accumulators are folded from a separate query of the net multiplicity per (group, value)
(:meth:`streamsql.functions.accumulators.Aggregates.multiset_queries`).

Result types are Flink's (each class's ``result_type``, checked against Flink 2.3's resolved
schemas): SUM and AVG of TINYINT, SMALLINT, INT, BIGINT, FLOAT, DOUBLE keep the argument's type
(AVG of integers truncates toward zero, as Flink's integral AVG divides a BIGINT sum by the
count); SUM of DECIMAL(p, s) is DECIMAL(38, s), AVG of it DECIMAL(38, max(s, 6)); MIN and MAX
keep the type; COUNT is BIGINT NOT NULL.

A SUM over integers wraps around as Java's arithmetic, as Flink 2.3's (its SUM adds in the
result type: ``SUM`` of TINYINT values 30, 120 and 240 is -122, of INTs past 2147483647 negative):
every form adds in BIGINT, wrapping past it (DuckDB's partial sums are HUGEINTs cut to their low 64
bits), and the total keeps the low bits of the result type. Two's complement addition gives the
same low bits in any order, so partial sums, retractions and merges agree with Flink's row by row
addition. The sum inside an AVG is a BIGINT, as in Flink, wrapping past it; the quotient is cut to
the result type the same way.
"""

from __future__ import annotations

import math
import operator
from dataclasses import dataclass
from decimal import Context, Decimal

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from streamsql.core.errors import ExecutionError, PlanError
from streamsql.core.java_hash import double_order
from streamsql.core.py_values import py_values
from streamsql.core.types import SqlType, holds_time
from streamsql.functions.aggregate_function import (
    AggregateFunction,
    numpy_values,
    overflow_error,
    valid_mask,
    zero_mask,
)
from streamsql.functions.bitmap_aggregates import BITMAP_FUNCTIONS
from streamsql.functions.collection_aggregates import COLLECTION_FUNCTIONS
from streamsql.functions.distinct_ttl import CountDistinctTtl
from streamsql.functions.ordered_aggregates import ORDERED_FUNCTIONS
from streamsql.functions.scalars import java_ints
from streamsql.functions.scalars.decimal_product import quotient_of_type
from streamsql.functions.variance import VARIANCE_FUNCTIONS

#: The ``context`` of an OVER aggregate's calls (``Aggregates``' operator name in messages).
OVER_CONTEXT = "OVER"
#: Exact DECIMAL addition: a sum of DECIMAL(38, s) values never needs 100 digits (the default
#: context rounds to 28, which cut a 34-digit sum), and past 38 the result is NULL (:func:`decimal_sum`).
_EXACT = Context(prec=100)
#: A SUM / AVG of DECIMAL(p, s) with p at most this cannot leave DECIMAL(38, s) before 10^10 rows: its
#: partial sums are DuckDB's; a wider one is added row by row (``Sum.wide_decimal``).
DECIMAL_SUM_SAFE = 28


def decimal_sum(a: Decimal, b: Decimal, scale: int) -> Decimal | None:
    """``a + b`` of a DECIMAL(38, ``scale``) sum, None (NULL) past 38 digits, as Flink's DECIMAL plus.

    (``DecimalDataUtils.add``: ``DecimalData.fromBigDecimal`` is null beyond the precision.)

    Flink's SUM then takes the next value as its sum again (``SumWithRetractAggFunction``: a NULL sum
    plus ``v`` is ``v``, minus ``v`` is ``-v``): :meth:`Sum.fold` starts again from a None sum.
    """
    total = _EXACT.add(a, b)
    return None if total.copy_abs() >= _EXACT.power(10, 38 - scale) else total  # (abs() rounds to 28 digits)


@dataclass(frozen=True)
class AggSpec:
    """One aggregate call.

    Attributes:
        func: count_star, count, sum, avg, min, max, min_retract, max_retract, count_distinct,
            sum_distinct, avg_distinct (and the functions of the other aggregate modules).
        arg: index of the argument column in the input batch (None for COUNT(*)); of the first
            of :func:`argument_count` consecutive ones. Calls may read one column (AVG(x), MAX(x)).
        out_type: the SQL type of the result.
    """

    func: str
    arg: int | None
    out_type: SqlType


def agg_output_type(func: str, arg: SqlType | None) -> SqlType:
    """The result type of an aggregate, as Flink types them (see the module docstring).

    Raises:
        PlanError: SUM/AVG over a non-numeric argument; an unknown aggregate.
    """
    cls = FUNCTIONS.get(func)
    if cls is None:
        msg = f"unknown aggregate function {func!r}"
        raise PlanError(msg)
    return cls.result_type(arg)


def output_field(name: str, t: SqlType) -> pa.Field:
    """The Arrow field of an aggregate's result column ``name`` of type ``t``.

    A TIME(p), also inside an ARRAY / MAP / ROW (``ARRAY_AGG(t)``), carries its precision in the
    field's metadata (every TIME is ``time64[us]``), so ``CAST(MAX(t) AS STRING)`` of a TIME(3)
    prints its milliseconds, as Flink; a VARIANT (a ``string``) its type.
    """
    timed = t.name in ("TIME", "VARIANT", "BITMAP") or (t.is_composite and holds_time(t))
    # a MULTISET (COLLECT) is carried as its map of element to count: its SQL type rides in the metadata
    return t.arrow_field(name) if timed or t.name == "MULTISET" else pa.field(name, t.to_arrow())


def argument_count(func: str) -> int | None:
    """The number of consecutive input columns, from its ``AggSpec.arg``, that a call of ``func`` reads.

    1, or a row-wise aggregate's arity (LISTAGG's value and separator, a Python aggregate's
    arguments); None for a function this process does not know.
    """
    cls = FUNCTIONS.get(func)
    if cls is None:
        return None
    return cls.function.arity if cls.rowwise else 1


class CountStar(AggregateFunction):
    """``COUNT(*)``: the number of rows."""

    func = "count_star"
    scalar = True

    @staticmethod
    def result_type(arg: SqlType | None) -> SqlType:
        """BIGINT NOT NULL."""
        return SqlType("BIGINT", nullable=False)

    def partial(self, sign: str | None) -> list[str]:
        """The (signed) row count."""
        return [f"sum({sign})::BIGINT" if sign else "count(*)::BIGINT"]

    def combine(self) -> list[str]:
        """The sum of the counts."""
        return [f"sum({self.columns[0]})::BIGINT"]

    def fixed_fields(self) -> list[tuple[str, str]] | None:
        """One int64 count."""
        return [("c", "<i8")]

    def partial_numpy(self, values, groups, n):
        """The row count of each group."""
        return [pa.array(np.bincount(groups, minlength=n).astype(np.int64, copy=False))]

    def fold_fixed(self, cols, slots, parts) -> None:
        """Add the counts."""
        cols[self.field("c")][slots] += numpy_values(parts[0], np.int64)

    def result_fixed(self, cols, slots):
        """The count (never NULL)."""
        return cols[self.field("c")][slots], None

    def fixed_of_object(self, acc):
        """The count."""
        return {"c": acc}

    def fold(self, accs, slot, parts) -> None:
        """Add the counts."""
        for acc, d in zip(accs, parts[0]):
            acc[slot] += d


def java_narrow(v: int, bits: int) -> int:
    """Java's narrowing of the integer ``v`` to ``bits``: its low bits, two's complement."""
    half = 1 << (bits - 1)
    return ((v + half) & ((1 << bits) - 1)) - half


def _narrow(values: np.ndarray, bits: int) -> np.ndarray:
    """:func:`java_narrow` of an int64 array (``bits`` < 64)."""
    return values.astype(np.dtype(f"int{bits}"))


class Count(CountStar):
    """``COUNT(x)``: the number of non-NULL values."""

    func = "count"

    def partial(self, sign: str | None) -> list[str]:
        """The (signed) count of non-NULL values."""
        if sign:
            return [f"sum(CASE WHEN {self.arg} IS NOT NULL THEN {sign} ELSE 0 END)::BIGINT"]
        return [f"count({self.arg})::BIGINT"]

    def partial_numpy(self, values, groups, n):
        """The count of non-NULL values of each group."""
        return super().partial_numpy(None, groups[valid_mask(values)], n)


#: A DECIMAL sum that left 38 digits where Flink's stays NULL (``Sum.sticky``): an AVG's
#: (``AvgAggFunction`` sums from 0 with a DECIMAL plus that is NULL past the precision, and NULL plus
#: anything is NULL) and an OVER SUM's (Calcite's $SUM0, which starts at 0 too).
STUCK = Decimal("NaN")


class Sum(AggregateFunction):
    """``SUM(x)``: partial state ``(non-NULL count, sum)``; NULL when no value counts."""

    func = "sum"
    width = 2
    #: A DECIMAL sum past 38 digits stays NULL (:data:`STUCK`); else the next value starts it again.
    sticky = False
    #: A floating sum's start: -0.0, the identity of + (Flink's SUM starts NULL, then takes its
    #: first value as is: a lone -0.0 stays -0.0).
    _start = -0.0

    def __post_init__(self) -> None:
        super().__post_init__()
        t = self.arg_type
        self.kind = "i" if pa.types.is_integer(t) else "f" if pa.types.is_floating(t) else None
        self._cast = {"i": "::BIGINT", "f": "::DOUBLE"}.get(self.kind, "")
        #: A DECIMAL whose sum can leave DECIMAL(38, s) (:func:`decimal_sum_overflows`): added row by
        #: row, an overflow NULL (Flink's DECIMAL plus), as a float list is.
        self.wide_decimal = pa.types.is_decimal(t) and t.precision > DECIMAL_SUM_SAFE
        self.ordered = self.kind == "f" or self.wide_decimal  # the values' list (ordered_partial)
        # Flink's SUM(FLOAT) adds in FLOAT (FloatSumAggFunction); its AVG(FLOAT) in DOUBLE
        self.float32 = self.func in ("sum", "sum_distinct", "sum0", "sum0_distinct") and t == pa.float32()
        if self.context == OVER_CONTEXT:
            # Calcite plans SUM(x) OVER w as CASE WHEN COUNT(x) OVER w > 0 THEN $SUM0(x) OVER w END:
            # $SUM0 starts at 0, so a lone -0.0 sums to 0.0 there (Flink 2.3's answer, recorded), and a
            # DECIMAL sum past 38 digits stays NULL (scripts/flink_decimal_sum_overflow.py)
            self._start = 0.0
            self.sticky = True

    @staticmethod
    def result_type(arg: SqlType | None) -> SqlType:
        """DECIMAL(38, s) over DECIMAL(p, s), else the argument's type (nullable), as Flink."""
        _numeric("sum", arg)
        if arg.name == "DECIMAL":
            return SqlType("DECIMAL", 38, arg.scale or 0)
        return SqlType(arg.name)

    @classmethod
    def accumulator_format(cls, spec: AggSpec, fixed: bool) -> int | None:
        """2 for a floating SUM's fixed-width form: a new record's sum starts at -0.0 (never set).

        Up to sumdist31 the record started at 0.0 and a sum of count 0 and value 0.0 was taken for
        one never set, so a sum retracted to exactly 0.0 restarted (Flink keeps its 0.0); such a
        record cannot be told from a never-set one, so its checkpoints are refused.
        """
        floating = spec.out_type.name in ("FLOAT", "DOUBLE")
        return 2 if fixed and cls.func == "sum" and floating else None

    def bits(self) -> int:
        """The width the integer result keeps (its type's; an AVG's quotient: the result type's too)."""
        return np.iinfo(self.out_type.to_pandas_dtype()).bits if pa.types.is_integer(self.out_type) else 64

    def _sum(self, values: str) -> str:
        """DuckDB's sum of ``values``: an integer one exact in HUGEINT, then its low 64 bits (Java's long).

        A floating sum that starts from -0.0 (:attr:`_start`: SUM, ``AvgOfSum``) is -0.0 when every
        value is -0.0, as Flink's ``SumAggFunction`` (NULL, then its first value as is, then ``+``:
        -0.0 + -0.0 is -0.0) within a window's slice and when it merges the slices' sums; DuckDB's
        ``sum`` starts from 0.0 and answers 0.0 (a window's SUM of a lone -0.0 was 0.0 up to winagg35).
        """
        if self.kind == "i":
            return java_ints.wrap(f"sum({values})", "BIGINT")
        if self.kind == "f" and math.copysign(1.0, self._start) < 0:
            return (f"CASE WHEN bool_and(signbit({values}) AND {values} = 0) THEN -0.0::DOUBLE "
                    f"ELSE sum({values}){self._cast} END")
        return f"sum({values}){self._cast}"

    def partial(self, sign: str | None) -> list[str]:
        """The (signed) non-NULL count and the (signed) sum."""
        a = f"{self.arg}::HUGEINT" if self.kind == "i" else self.arg
        if sign:
            return [f"sum(CASE WHEN {self.arg} IS NOT NULL THEN {sign} ELSE 0 END)::BIGINT",
                    self._sum(f"CASE WHEN {sign} > 0 THEN {a} ELSE -{a} END")]
        return [f"count({self.arg})::BIGINT", self._sum(a)]

    def ordered_partial(self, sign: str | None) -> list[str]:
        """The (signed) non-NULL count and, floating point, the list of the (signed) values in row order.

        Flink's SUM and AVG add (and retract) one row at a time, in DOUBLE (FLOAT: see
        :meth:`fold`): a partial sum added to the stored one rounds otherwise than the rows one by
        one (seed 200291's AVG, ``CAST`` to DECIMAL, differed in its third decimal). The list is
        DuckDB's ``list`` over one batch, in its order (one thread).
        """
        if self.kind != "f" and not self.wide_decimal:
            return self.partial(sign)
        a = f"{self.arg}::DOUBLE" if self.kind == "f" else self.arg
        value = f"CASE WHEN {sign} > 0 THEN {a} ELSE -{a} END" if sign else a
        return [self.partial(sign)[0], f"list({value}) FILTER (WHERE {self.arg} IS NOT NULL)"]

    def combine(self) -> list[str]:
        """Sums of the counts and of the sums."""
        c, s = self.columns
        return [f"sum({c})::BIGINT", self._sum(f"{s}::HUGEINT" if self.kind == "i" else s)]

    def finish(self, parts):
        """The sum, NULL where no value counted; an integer one wrapped to the result type."""
        c, s = parts
        if self.kind == "i" and self.bits() < 64:  # the low bits, two's complement (Java's narrowing)
            half = 1 << (self.bits() - 1)
            s = pc.subtract(pc.bit_wise_and(pc.add(s, half), (1 << self.bits()) - 1), half)
        return pc.if_else(pc.equal(c, 0), pa.scalar(None, s.type), s)

    def overflow(self) -> ExecutionError:
        """The error of a partial integer sum beyond HUGEINT (DuckDB's exact sum; never in practice)."""
        return overflow_error(self.context, f"{self.label} (a SUM) left the exact range of its partial sums")

    def fixed_fields(self) -> list[tuple[str, str]] | None:
        """An int64 count and an int64 or float64 sum (integer and floating-point arguments)."""
        if self.kind is None:
            return None
        return [("c", "<i8"), ("s", "<f8" if self.kind == "f" else "<i8")]

    def start_fixed(self, cols, slots) -> None:
        """A floating SUM's new records start at -0.0, the identity of + (:meth:`accumulator_format`).

        Flink's SUM starts NULL and takes its first value as is (a lone -0.0 stays -0.0); a sum
        whose values were all retracted keeps what is left (0.0 after 1.5 - 1.5, so a -0.0 added
        then gives 0.0), as Flink's ``SumWithRetractAggFunction``.
        """
        if self.kind == "f" and math.copysign(1.0, self._start) < 0:  # SUM, AvgOfSum; not $SUM0, AVG
            cols[self.field("s")][slots] = -0.0

    def fold_fixed(self, cols, slots, parts) -> None:
        """Add counts and sums (an integer sum wraps around int64, as Java's long).

        A floating-point list of values (:meth:`ordered_partial`) is added value by value in its
        order (``np.add.at`` is unbuffered: repeated slots add in turn).
        """
        count = cols[self.field("c")]
        col = cols[self.field("s")]
        count[slots] += numpy_values(parts[0], np.int64)
        if pa.types.is_list(parts[1].type):
            lists = parts[1].combine_chunks() if isinstance(parts[1], pa.ChunkedArray) else parts[1]
            lengths = pc.fill_null(pc.list_value_length(lists), 0).to_numpy(zero_copy_only=False)
            values = numpy_values(pc.list_flatten(lists), np.float64)
            at = np.repeat(slots, lengths)
            with np.errstate(invalid="ignore"):  # inf + -inf is NaN, as Java's
                if self.float32:  # FLOAT arithmetic, as Java's float +
                    at, inv = np.unique(at, return_inverse=True)
                    total = col[at].astype(np.float32)
                    np.add.at(total, inv, values.astype(np.float32))
                    col[at] = total
                else:
                    np.add.at(col, at, values)
            return
        col[slots] = col[slots] + numpy_values(parts[1], col.dtype)

    def result_fixed(self, cols, slots):
        """The sum (an integer one wrapped to the result type), valid where the count is positive."""
        s = cols[self.field("s")][slots]
        if self.kind == "i" and self.bits() < 64:
            s = _narrow(s, self.bits())
        return s, cols[self.field("c")][slots] > 0

    def create(self):
        """``[sum, count]``, the sum None until a value counts."""
        return [None, 0]

    def fold_columns(self, accs, slot, columns) -> None:
        """:meth:`fold`; a floating list of values (:meth:`ordered_partial`) added with numpy.

        ``np.add.at`` adds unbuffered, in index order: each key's values are added one by one in
        their order, in DOUBLE (FLOAT for :attr:`float32`), as the Python loop of :meth:`fold`
        does, bit for bit, without a Python step per value. A sum still None starts from the
        identity -0.0 (SUM: the first value as is) or 0.0 (AVG: ``0.0 + v``, :meth:`_first`).
        """
        counts, sums = columns
        if not pa.types.is_list(sums.type) or self.wide_decimal:  # (a DECIMAL list: :meth:`fold`)
            super().fold_columns(accs, slot, columns)
            return
        lists = sums.combine_chunks() if isinstance(sums, pa.ChunkedArray) else sums
        lengths = pc.fill_null(pc.list_value_length(lists), 0).to_numpy(zero_copy_only=False)
        dtype = np.float32 if self.float32 else np.float64
        values = numpy_values(pc.list_flatten(lists), dtype)
        curs = [acc[slot] for acc in accs]
        totals = np.array([self._start if c[0] is None else c[0] for c in curs], dtype)
        with np.errstate(invalid="ignore", over="ignore"):  # inf + -inf is NaN, as Java's
            np.add.at(totals, np.repeat(np.arange(len(curs)), lengths), values)
        for cur, n, k, t in zip(curs, counts.to_pylist(), lengths.tolist(), totals.tolist()):
            cur[1] += n
            if k:
                cur[0] = t

    def fixed_of_object(self, acc):
        """An integer sum's count and sum (0 before a value counts, as a new record's).

        None for a floating sum: a new record starts at -0.0 where an object sum starts unset.
        """
        if self.kind != "i":
            return None
        return {"c": acc[1], "s": 0 if acc[0] is None else acc[0]}

    def fold(self, accs, slot, parts) -> None:
        """Add counts and sums (an integer sum wraps around as Java's long)."""
        integer = self.kind == "i"
        for acc, n, s in zip(accs, parts[0], parts[1]):
            cur = acc[slot]
            cur[1] += n
            if isinstance(s, list):  # a floating-point list (ordered_partial): one value at a time
                for v in s:
                    cur[0] = self._first(v) if cur[0] is None else self._add(cur[0], v)
            elif s is not None:
                t = self._first(s) if cur[0] is None else self._add(cur[0], s)
                cur[0] = java_narrow(t, 64) if integer else t

    @property
    def residue(self) -> bool:
        """A floating sum keeps its rounding (and a NaN, an infinity) after its values are retracted."""
        return self.kind == "f"

    def zero_sign_rows(self, values):
        """Rows of -0.0: the sum is -0.0 only while every value added was -0.0 (see the base)."""
        if self.kind != "f":
            return None
        return zero_mask(values, -1)

    def _first(self, v):
        """The sum of one value: floating point ``_start + v``, else ``v``."""
        return self._start + v if self.kind == "f" else v

    def _add(self, a, b):
        """``a + b`` in the sum's arithmetic: FLOAT's for a SUM of FLOAT (:attr:`float32`)."""
        if self.float32:
            with np.errstate(invalid="ignore", over="ignore"):  # inf + -inf is NaN, past the max inf: Java's
                return float(np.float32(a) + np.float32(b))
        if isinstance(a, Decimal):
            if self.sticky and (a.is_nan() or b.is_nan()):
                return STUCK
            total = decimal_sum(a, b, self.out_type.scale)
            return STUCK if total is None and self.sticky else total
        return a + b

    def merge(self, a, b):
        """Add ``b``'s count and sum to ``a``'s."""
        self.fold([[a]], 0, [[b[1]], [b[0]]])
        return a

    def result(self, acc):
        """The sum (an integer one wrapped to the result type), None when no value counted."""
        if acc[1] == 0 or (isinstance(acc[0], Decimal) and acc[0].is_nan()):  # (STUCK: NULL)
            return None
        return java_narrow(acc[0], self.bits()) if self.kind == "i" and acc[0] is not None else acc[0]


class Avg(Sum):
    """``AVG(x)``: sum / count of the non-NULL values (the state of a SUM)."""

    func = "avg"
    #: Flink's AVG sums from 0: a lone -0.0 averages 0.0.
    _start = 0.0
    #: Flink's AVG sum starts at 0, never NULL: past 38 digits it stays NULL (:data:`STUCK`).
    sticky = True
    #: An integer sum is wrapped to the argument's type before it is divided (:class:`AvgOfSum`: the
    #: ``$SUM0`` of the reduced AVG is of that type); Flink's own AVG divides its BIGINT sum.
    _narrow_sum = False

    def zero_sign_rows(self, values):
        """None: Flink's AVG sums from 0.0 (``_start``), its sum and quotient are never -0.0."""
        return None

    @staticmethod
    def result_type(arg: SqlType | None) -> SqlType:
        """DECIMAL(38, max(s, 6)) over DECIMAL(p, s), else the argument's type (nullable), as Flink."""
        _numeric("avg", arg)
        if arg.name == "DECIMAL":
            return SqlType("DECIMAL", 38, max(arg.scale or 0, 6))
        return SqlType(arg.name)

    def finish(self, parts):
        """Sum / count, NULL where no value counted (see :meth:`result`)."""
        c, s = parts
        if self.kind != "f":
            rows = zip(s.to_pylist(), c.to_pylist())
            return pa.array([self.result([t, n]) for t, n in rows], self.out_type)
        nonzero = pc.if_else(pc.equal(c, 0), pa.scalar(None, c.type), c)
        return pc.divide(s.cast(pa.float64()), nonzero.cast(pa.float64()))

    def result_fixed(self, cols, slots):
        """Sum / count (integers: truncated toward zero), valid where the count is positive."""
        c, s = cols[self.field("c")][slots], cols[self.field("s")][slots]
        n = np.where(c > 0, c, 1)
        if self.kind == "i" and self._narrow_sum and self.bits() < 64:
            s = _narrow(s, self.bits()).astype(np.int64)
        if self.kind == "i":
            quotient = np.sign(s) * (np.abs(s) // n)
            return (_narrow(quotient, self.bits()) if self.bits() < 64 else quotient), c > 0
        return s.astype(np.float64) / n, c > 0

    def result(self, acc):
        """Sum / count, None when no value counted.

        DECIMAL: rounded half up to the result's scale (exactly: a DECIMAL(38, 18) average has up to
        38 digits), NULL past its precision; integers: truncated toward zero (as
        Flink's integral AVG, a Java long division); floating point: the float quotient.
        """
        total, n = acc
        if n == 0 or (isinstance(total, Decimal) and total.is_nan()):  # (STUCK: NULL)
            return None
        if pa.types.is_decimal(self.out_type):
            return quotient_of_type(total, n, self.out_type.precision, self.out_type.scale)
        if self.kind == "i":
            if self._narrow_sum:
                total = java_narrow(total, self.bits())
            return java_narrow(-(-total // n) if total < 0 else total // n, self.bits())
        return float(total) / n


class Min(AggregateFunction):
    """``MIN(x)`` over insert-only input: the smallest non-NULL value.

    Floating-point values follow Flink's ``MinAggFunction``, which keeps a value and replaces it
    when a new one is smaller by Java's primitive ``<``: of -0.0 and 0.0 the first seen stays, and
    a NaN is kept only when it comes first (no comparison with NaN holds), then for good. The
    answer depends on the rows' order: a batch's rows are taken in their order (DuckDB's
    ``first``, one thread over a batch), batches and window slices in arrival order.
    """

    func = "min"

    @classmethod
    def result_type(cls, arg: SqlType | None) -> SqlType:
        """The argument's type; a VARIANT (unordered) is refused (:func:`ordered`)."""
        return ordered(cls.func, arg)
    scalar = True

    def zero_sign_rows(self, values):
        """None: Java's ``<`` keeps the first zero seen, a zero never replaces the other."""
        return None

    _better = staticmethod(operator.lt)
    _pick = staticmethod(np.minimum)
    _np_better = staticmethod(np.less)

    def __post_init__(self) -> None:
        super().__post_init__()
        self.ordered = pa.types.is_floating(self.arg_type)  # first(): see _java_extreme

    def partial(self, sign: str | None) -> list[str]:
        """The extreme of the batch (a retraction cannot be folded: see ``min_retract``)."""
        return [self._java_extreme(self.arg)]

    def combine(self) -> list[str]:
        """The extreme of the extremes."""
        return [self._java_extreme(self.columns[0])]

    def _java_extreme(self, x: str) -> str:
        """DuckDB's extreme of ``x`` over a group as Java's ``<``/``>`` keeps it, rows in order.

        Not floating point: DuckDB's ``min``/``max``. Floating point: NaN when the first non-NULL
        value is NaN, else the extreme of the other values, the first zero seen when it is 0
        (DuckDB's ``min`` takes -0.0 for 0.0 and NaN for the greatest value).
        """
        f = self.func
        if not pa.types.is_floating(self.arg_type):
            return f"{f}({x})"
        first = f"first({x}) FILTER (WHERE {x} IS NOT NULL)"
        extreme = f"{f}({x}) FILTER (WHERE NOT isnan({x}))"
        return (f"CASE WHEN isnan({first}) THEN {first} WHEN {extreme} = 0 "
                f"THEN first({x}) FILTER (WHERE {x} = 0) ELSE {extreme} END")

    def fixed_fields(self) -> list[tuple[str, str]] | None:
        """The extreme (int64: integers, dates, timestamps; float64) and an int8 "seen" flag."""
        t = self.arg_type
        if pa.types.is_floating(t):
            return [("v", "<f8"), ("h", "<i1")]
        if pa.types.is_integer(t) or pa.types.is_timestamp(t) or pa.types.is_date(t):
            return [("v", "<i8"), ("h", "<i1")]
        return None

    def partial_numpy(self, values, groups, n):
        """The extreme of each group's non-NULL values (NULL where none).

        None (DuckDB's query, which keeps the rows' order) for floating point values with a NaN
        or a zero, whose extreme depends on the order (see the class docstring).
        """
        t = values.type
        if pa.types.is_floating(t):
            dtype, start = np.float64, (np.inf if self.func == "min" else -np.inf)
        elif (pa.types.is_integer(t) and t != pa.uint64()) or pa.types.is_timestamp(t) or pa.types.is_date(t):
            dtype = np.int64
            start = np.iinfo(np.int64).max if self.func == "min" else np.iinfo(np.int64).min
        else:
            return None
        valid = valid_mask(values)
        raw = numpy_values(values, dtype)[valid]
        if dtype is np.float64 and (np.isnan(raw).any() or (raw == 0).any()):
            return None
        at = groups[valid]
        out = np.full(n, start, dtype)
        self._pick.at(out, at, raw)
        seen = np.bincount(at, minlength=n) > 0
        arr = pa.array(out, mask=~seen)
        if pa.types.is_timestamp(t) or pa.types.is_date(t):  # from its integer storage
            return [arr.cast(pa.int32()).view(t) if t.bit_width == 32 else arr.view(t)]
        return [arr.cast(t)]

    def fold_fixed(self, cols, slots, parts) -> None:
        """Keep the extreme of the stored and the batch's value, per slot."""
        v, h = cols[self.field("v")], cols[self.field("h")]
        partial = parts[0].cast(self.out_type)  # same unit as the output
        valid = valid_mask(partial)
        new = numpy_values(partial, v.dtype)
        cur, seen = v[slots], h[slots].astype(bool)
        with np.errstate(invalid="ignore"):  # Java's < / >: the stored value stays on a tie or NaN
            v[slots] = np.where(valid & (~seen | self._np_better(new, cur)), new, cur)
        h[slots] = seen | valid

    def result_fixed(self, cols, slots):
        """The extreme, valid once a value was seen."""
        return cols[self.field("v")][slots], cols[self.field("h")][slots].astype(bool)

    def create(self):
        """None (no value yet)."""
        return None

    def to_objects(self, part: pa.ChunkedArray) -> list:
        """Values; dates and timestamps of the result's unit as integers (same order, no datetimes)."""
        t, ot = part.type, self.out_type
        if pa.types.is_timestamp(t) and pa.types.is_timestamp(ot):
            if t.unit == ot.unit and (t.tz is None) == (ot.tz is None):
                return part.cast(pa.int64()).to_pylist()
        elif pa.types.is_date32(t) and pa.types.is_date32(ot):
            return part.cast(pa.int32()).to_pylist()
        return py_values(part)

    def fold(self, accs, slot, parts) -> None:
        """Keep the extreme."""
        better = self._better
        for acc, v in zip(accs, parts[0]):
            if v is not None:
                cur = acc[slot]
                if cur is None or better(v, cur):
                    acc[slot] = v

    def merge(self, a, b):
        """The extreme of both."""
        if a is None or (b is not None and self._better(b, a)):
            return b
        return a


class Max(Min):
    """``MAX(x)`` over insert-only input: the largest non-NULL value."""

    func = "max"
    _better = staticmethod(operator.gt)
    _pick = staticmethod(np.maximum)
    _np_better = staticmethod(np.greater)


class MinRetract(AggregateFunction):
    """``MIN(x)`` over a changelog: a multiset of the values, so a retracted minimum falls back.

    Floating-point values are ordered as Java's ``Double.compareTo`` (-0.0 below 0.0, NaN above
    every number), as Flink's ``MinWithRetractAggFunction`` orders its map's boxed values.
    """

    func = "min_retract"

    @classmethod
    def result_type(cls, arg: SqlType | None) -> SqlType:
        """The argument's type; a VARIANT (unordered) is refused (:func:`ordered`)."""
        return ordered(cls.func, arg)
    width = 0
    multiset = True
    combinable = False
    _extreme = staticmethod(min)
    #: The zero whose arrival or last departure may flip the result's sign (:meth:`zero_sign_rows`).
    _flipping_zero = -1

    def zero_sign_rows(self, values):
        """Rows of -0.0 (MAX: of 0.0), None when not floating.

        A MIN goes from 0.0 to -0.0 only when -0.0 arrives and back only when its last copy
        leaves (by ``Double.compareTo`` -0.0 is below 0.0); a MAX between 0.0 and -0.0 only when
        0.0 arrives or leaves.
        """
        if not pa.types.is_floating(self.arg_type) or self.func not in ("min_retract", "max_retract"):
            return super().zero_sign_rows(values)
        return zero_mask(values, self._flipping_zero)

    def create(self):
        """An empty multiset."""
        return {}

    def merge(self, a, b):
        """The multiset union (multiplicities add)."""
        for v, n in b.items():
            a[v] = a.get(v, 0) + n
        return a

    def result(self, acc):
        """The extreme value still present (floats: by :func:`double_order`), None when empty."""
        if not acc:
            return None
        if pa.types.is_floating(self.arg_type):
            return self._extreme(acc, key=double_order)
        return self._extreme(acc)


class MaxRetract(MinRetract):
    """``MAX(x)`` over a changelog (see :class:`MinRetract`)."""

    func = "max_retract"
    _extreme = staticmethod(max)
    _flipping_zero = 1


class CountDistinct(MinRetract):
    """``COUNT(DISTINCT x)``: the number of distinct non-NULL values (a multiset of them)."""

    func = "count_distinct"
    width = 1
    combinable = True

    @staticmethod
    def result_type(arg: SqlType | None) -> SqlType:
        """BIGINT NOT NULL."""
        return SqlType("BIGINT", nullable=False)

    def partial(self, sign: str | None) -> list[str]:
        """The list of distinct non-NULL values (insert-only; the object form uses the multiset)."""
        return [self._distinct(f"list({self.arg})")]

    def combine(self) -> list[str]:
        """The distinct values of the lists."""
        return [self._distinct(f"flatten(list({self.columns[0]}))")]

    def _distinct(self, values: str) -> str:
        """DuckDB's distinct non-NULL elements of list ``values``, floats by Java's ``Double.equals``.

        DuckDB's ``list_distinct`` takes -0.0 for 0.0; Flink's distinct map keeps them apart (and
        every NaN as one, as ``list_distinct`` does): a floating list's zeros are made distinct by
        sign, on their own. The list's type stays the argument's, so window slices written before
        stay readable.
        """
        if not pa.types.is_floating(self.arg_type):
            return f"list_distinct({values})"
        parts = [f"list_distinct(list_filter({values}, lambda v: {cond}))"
                 for cond in ("v <> 0", "v = 0 AND signbit(v)", "v = 0 AND NOT signbit(v)")]
        return f"list_concat({', '.join(parts)})"

    def finish(self, parts):
        """The length of the distinct list."""
        return pc.list_value_length(parts[0])

    def result(self, acc):
        """The number of distinct values present."""
        return len(acc)


class SumDistinct(CountDistinct):
    """``SUM(DISTINCT x)``: a running ``SUM(x)`` fed by a multiset of the values, as Flink's distinct view.

    Flink's ``DistinctAggCodeGen`` keeps, per value, its count in a map (``Double.equals`` keys)
    and calls the plain function (``SumWithRetractAggFunction``, ``AvgAggFunction``) on the
    count's transitions only: ``accumulate(v)`` when it goes 0 -> 1, ``retract(v)`` when it goes
    1 -> 0, row by row. So the object accumulator is ``[{value: multiplicity}, plain
    accumulator]`` (:class:`Sum`'s ``[sum, count]``), and the result is the plain one's: a NaN once
    added stays in a floating sum after its value left (NaN - NaN is NaN), an Infinity retracted
    and added again is NaN, and the rounding is the history's (``tests/functions/test_float_aggs.py``).
    Integer and DECIMAL sums are exact (integers wrap as Java's long), so their running sum is
    the sum of the values present, whatever the order. A floating one depends on the order of
    the transitions: :attr:`ordered`, so the GROUP BY's multiset query gives every row, in order
    (:meth:`~streamsql.functions.accumulators.Aggregates.multiset_queries`).

    A window's slices keep the distinct values as a list (insert-only input, no retraction):
    :meth:`finish` sums each list. Up to sumdist31 the accumulator was the multiset alone: such a
    floating one cannot be told its history (its signature has :meth:`accumulator_format` 2, so its
    checkpoints are refused); an integer or DECIMAL one is read as today's (:meth:`_upgraded`).
    """

    func = "sum_distinct"
    _plain: type[Sum] = Sum

    @staticmethod
    def result_type(arg: SqlType | None) -> SqlType:
        """As SUM(x)."""
        return Sum.result_type(arg)

    @classmethod
    def accumulator_format(cls, spec: AggSpec, fixed: bool) -> int | None:
        """2 over FLOAT/DOUBLE: a running sum whose history the old multiset alone cannot give.

        None (unchanged) over integers and DECIMAL: the running sum of exact arithmetic is the sum
        of the values present, so an old accumulator is upgraded as read (:meth:`_upgraded`).
        """
        return 2 if spec.out_type.name in ("FLOAT", "DOUBLE") else None

    def __post_init__(self) -> None:
        super().__post_init__()
        self._of = self._plain(self.index, self.spec, self.arg, self.arg_type, self.out_type, self.label,
                               self.context)
        self.ordered = self._of.kind == "f"

    @property
    def residue(self) -> bool:
        """A floating running sum keeps a NaN or its rounding when every value is retracted."""
        return self.ordered

    def create(self):
        """``[{}, a new plain accumulator]``."""
        return [{}, self._of.create()]

    def fold_multiset(self, accs, slot, rows, values, mults) -> None:
        """Count ``mults[i]`` of ``values[i]`` into ``accs[rows[i]][slot]``, as Flink's distinct view.

        A value whose count rises from below 1 to 1 or more is added to the running sum, one that
        falls from 1 or more to below 1 is retracted from it (:class:`Sum`'s fold of ``-v``; a
        count never stays below 1 here, as :class:`CountDistinct`'s multiset).
        """
        fold = self._of.fold
        for i, v, d in zip(rows, values, mults):
            ms, running = accs[i][slot] = self._upgraded(accs[i][slot])
            before = ms.get(v, 0)
            n = before + d
            if n > 0:
                ms[v] = n
            else:
                ms.pop(v, None)
            if before < 1 <= n:
                fold([[running]], 0, [[1], [v]])
            elif n < 1 <= before:
                fold([[running]], 0, [[-1], [-v]])

    def merge(self, a, b):
        """``b``'s counts folded into ``a`` (a session merge), by the changes of Flink's distinct merge."""
        items = list(self._upgraded(b)[0].items())
        into = [self._upgraded(a)]
        self.fold_multiset([into], 0, [0] * len(items), [v for v, _ in items], [n for _, n in items])
        return into[0]

    def finish(self, parts):
        """The plain aggregate of each window's list of distinct values, in the list's order."""
        return pa.array([self._of.result(self._summed(v or [])) for v in py_values(parts[0])], self.out_type)

    def _summed(self, values: list):
        """A new plain accumulator with ``values`` added in their order."""
        running = self._of.create()
        self._of.fold([[running]] * len(values), 0, [[1] * len(values), values])
        return running

    def result(self, acc):
        """The running plain aggregate's result (None without a value)."""
        return self._of.result(self._upgraded(acc)[1])

    def _upgraded(self, acc):
        """``acc``, or an accumulator of StreamSQL up to sumdist31 (the multiset alone) as today's.

        Its running sum is the sum of its values: exactly the running one for integers (Java's
        wrap-around) and DECIMAL, whose old checkpoints are restored; floating ones are refused
        (:meth:`accumulator_format`).
        """
        if not isinstance(acc, dict):
            return acc
        return [acc, self._summed(list(acc))]


class AvgDistinct(SumDistinct):
    """``AVG(DISTINCT x)``: the average of the distinct non-NULL values, typed and rounded as ``AVG(x)``."""

    func = "avg_distinct"
    _plain = Avg

    @staticmethod
    def result_type(arg: SqlType | None) -> SqlType:
        """As AVG(x)."""
        return Avg.result_type(arg)


class Sum0(Sum):
    """Calcite's ``$SUM0(x)`` as the SUM(x) of an aggregate Flink's AggregateReduceFunctionsRule reduced.

    Flink 2.3 has no STDDEV / VAR aggregate of its own: the rule rewrites every call of an aggregate
    that holds one (:func:`streamsql.plan.agg_reduce.reduce_functions`), each ``SUM(x)`` into
    ``CASE WHEN COUNT(x) = 0 THEN NULL ELSE $SUM0(x) END``, a sum from 0.0 (``Sum0AggFunction``): a
    lone -0.0 sums to 0.0 (``tests/functions/sumdistinct34_flink.json``). Otherwise :class:`Sum`.
    """

    func = "sum0"
    _start = 0.0

    def zero_sign_rows(self, values):
        """None: a sum from 0.0 is never -0.0 (as :class:`Avg`'s)."""
        return None


class AvgOfSum(Avg):
    """``AVG(x)`` as ``SUM(x) / COUNT(x)``, Flink's AggregateReduceFunctionsRule's reduction of it.

    In an aggregate the rule reduced (:func:`streamsql.plan.agg_reduce.reduce_functions`) the AVG is
    that quotient: of DOUBLEs, its SUM takes its first value as is, so a lone -0.0 averages -0.0
    (Flink's own AVG sums from 0.0: 0.0); of integers, the sum is of the argument's type, wrapped
    past it before the division (Flink 2.3: AVG(DISTINCT i) of the INTs 2147483000 and 1000 is
    -1073741648, ``tests/functions/float_aggs_flink.json``). The planner keeps :class:`Avg` for
    FLOAT and DECIMAL.
    """

    func = "avg_of_sum"
    _start = -0.0
    _narrow_sum = True

    def zero_sign_rows(self, values):
        """Rows of -0.0, as :class:`Sum`'s: the quotient is -0.0 while every value was -0.0."""
        return Sum.zero_sign_rows(self, values)


class Sum0Distinct(SumDistinct):
    """``SUM(DISTINCT x)`` reduced to ``$SUM0(DISTINCT x)``: :class:`SumDistinct` over a :class:`Sum0`."""

    func = "sum0_distinct"
    _plain = Sum0


class AvgOfSumDistinct(AvgDistinct):
    """``AVG(DISTINCT x)`` reduced to ``SUM(DISTINCT x) / COUNT(DISTINCT x)`` (see :class:`AvgOfSum`)."""

    func = "avg_of_sum_distinct"
    _plain = AvgOfSum


REDUCED_FUNCTIONS = {Sum.func: Sum0.func, SumDistinct.func: Sum0Distinct.func, Avg.func: AvgOfSum.func,
                     AvgDistinct.func: AvgOfSumDistinct.func}
"""A SUM / AVG call's function once Flink's AggregateReduceFunctionsRule rewrote its aggregate."""


DISTINCT_FUNCTIONS = {"sum": SumDistinct.func, "avg": AvgDistinct.func}
"""The multiset function of ``F(DISTINCT x)`` for a plain aggregate ``F`` that has one."""


FUNCTIONS: dict[str, type[AggregateFunction]] = {
    cls.func: cls for cls in (CountStar, Count, Sum, Avg, Min, Max, MinRetract, MaxRetract, CountDistinct,
                              SumDistinct, AvgDistinct, Sum0, AvgOfSum, Sum0Distinct, AvgOfSumDistinct,
                              CountDistinctTtl, *VARIANCE_FUNCTIONS, *ORDERED_FUNCTIONS,
                              *COLLECTION_FUNCTIONS, *BITMAP_FUNCTIONS)
}


@dataclass(frozen=True)
class AggregateDoc:
    """An aggregate's row in docs/functions.md (scripts/functions_doc.py)."""

    names: tuple[str, ...]
    arguments: str
    nulls: str
    differences: str = ""


_OVERFLOW = ("An integer total beyond the result type wraps around as Java's, as in Flink "
             "([aggregate result types](queries.md#aggregate-result-types)).")
_VARIANCE = ("Flink 2.3's Welford accumulator over the values as DOUBLE, row by row in arrival order, cast "
             "to the argument's type (a DECIMAL's: DECIMAL(38, max(6, s))). In a HOP or CUMULATE window "
             "or a session the window's rows are accumulated in order where Flink merges the parts' "
             "accumulators: the last digits may differ. With DISTINCT, Flink's distinct view: a value "
             "is accumulated at its first arrival and retracted when its last copy leaves (in a window "
             "Flink merges the parts' distinct values in hash order, here in arrival order: the last "
             "digits may differ). OVER a window, as Flink 2.3 expands it: windowed SUM(x*x), SUM(x) and "
             "COUNT(x) of the argument cast to the result type (integer arithmetic over integers), each "
             "DISTINCT with DISTINCT (the squares deduplicated apart: -2 and 2 square to one 4); "
             "refused OVER a window ordered by a non-time column, where Flink 2.3's job fails.")
_FIRST_LAST = ("In GROUP BY, TUMBLE windows and OVER; refused in HOP, CUMULATE and SESSION windows as Flink "
               "refuses them (no merge of a window's parts).")
_ROWWISE = ("Values in arrival order; a retraction removes the value's first occurrence. In GROUP BY, "
            "every window and OVER; in a HOP window the slices join newest first, as Flink merges them.")
_DISTINCT = (" DISTINCT keeps a value once, at its first arrival since it was last absent (a value "
             "retracted to a count of zero and added again comes last), in GROUP BY and OVER; refused in "
             "windows: Flink's two-phase window aggregate orders the values by its distinct map's hash.")
_BITMAPS = ("In GROUP BY (a retraction subtracted as Flink's WithRetract functions), window and OVER "
            "aggregates ([types.md](types.md#bitmap)).")

AGGREGATE_DOCS = (
    AggregateDoc(("COUNT",), "`*`, any value, `DISTINCT` value", "counts non-NULL values; never NULL"),
    AggregateDoc(("SUM",), "numeric, `DISTINCT` numeric", "NULL without a non-NULL value", _OVERFLOW),
    AggregateDoc(("AVG",), "numeric, `DISTINCT` numeric", "NULL without a non-NULL value",
                 "The sum inside is bounded by BIGINT, as in Flink."),
    AggregateDoc(("MIN",), "any ordered type", "NULL without a non-NULL value"),
    AggregateDoc(("MAX",), "any ordered type", "NULL without a non-NULL value"),
    AggregateDoc(("VAR_POP",), "numeric, `DISTINCT` numeric", "NULL without a non-NULL value", _VARIANCE),
    AggregateDoc(("VAR_SAMP", "VARIANCE"), "numeric, `DISTINCT` numeric",
                 "NULL with fewer than two non-NULL values",
                 _VARIANCE),
    AggregateDoc(("STDDEV_POP",), "numeric, `DISTINCT` numeric", "NULL without a non-NULL value", _VARIANCE),
    AggregateDoc(("STDDEV_SAMP", "STDDEV"), "numeric, `DISTINCT` numeric",
                 "NULL with fewer than two non-NULL values",
                 _VARIANCE),
    AggregateDoc(("FIRST_VALUE",), "any value", "ignores NULLs; NULL without a non-NULL value", _FIRST_LAST),
    AggregateDoc(("LAST_VALUE",), "any value", "ignores NULLs; NULL without a non-NULL value", _FIRST_LAST),
    AggregateDoc(("LISTAGG",), "`[DISTINCT]` STRING [, separator: a string literal, default `,`]",
                 "ignores NULL values; NULL without a non-NULL value",
                 _ROWWISE + _DISTINCT + " Flink refuses LISTAGG(DISTINCT ...) in a HOP window."),
    AggregateDoc(("ARRAY_AGG",), "any value: `[DISTINCT] x [RESPECT NULLS \\| IGNORE NULLS]`",
                 "keeps NULL values unless IGNORE NULLS; NULL without a value", _ROWWISE + _DISTINCT),
    AggregateDoc(("COLLECT",), "`[DISTINCT]` a string, an integer or a BOOLEAN",
                 "ignores NULL values; never NULL (`{}` without a value)",
                 "`MULTISET<type of x> NOT NULL`: each value with its count (DISTINCT: 1); a retraction "
                 "counts it down. Printed and cast to STRING as Flink's `{x=3, z=1, y=2}`, in the order of "
                 "its Java `HashMap` (the values' internal hashes, as Flink 2.3's heap state backend; "
                 "`tests/sql/flink_query_gaps` \"collect\"). Other element types (DECIMAL, DOUBLE, times) "
                 "are refused: their hash order is not reproduced. CARDINALITY and element access take no "
                 "MULTISET (Flink's code generator fails on CARDINALITY of one); a table column cannot be "
                 "declared MULTISET yet. In GROUP BY only: refused in window and OVER aggregates (Flink "
                 "merges a window's parts into its map in an order not reproduced)."),
    AggregateDoc(("JSON_ARRAYAGG",), "x as JSON_ARRAY's values: `x [ABSENT ON NULL \\| NULL ON NULL]`",
                 "never NULL (`[]` without a value); NULL values left out (ABSENT ON NULL, the default) "
                 "or written as `null`",
                 "Values in arrival order; a retraction removes the value's first occurrence. In GROUP BY "
                 "and TUMBLE windows; refused in OVER, HOP, CUMULATE and SESSION windows as Flink refuses "
                 "it. Each value is written as JSON_ARRAY writes it (a TIMESTAMP as "
                 "`\"2024-01-01T10:00:00.123\"`, BYTES in base64, an ARRAY, ROW or MAP nested). "
                 "VARCHAR(2000) NOT NULL, as Flink's (not cut)."),
    AggregateDoc(("JSON_OBJECTAGG",),
                 "`[KEY] k VALUE v [NULL ON NULL \\| ABSENT ON NULL]`: k a STRING, v as JSON_OBJECT's values",
                 "never NULL (`{}` without a pair); a NULL value written as `null` (NULL ON NULL, the "
                 "default) or left out",
                 "Members sorted by key, as Flink writes them; a retraction removes the key. A key seen "
                 "again while present (also in two parts a window merges), or a NULL key, fails the job "
                 "as in Flink. In GROUP BY and window aggregates; refused in OVER windows and with FILTER as "
                 "Flink refuses it. VARCHAR(2000) NOT NULL."),
    AggregateDoc(("PERCENTILE",),
                 "numeric, percentage (a literal in [0, 1] or an ARRAY of them) [, frequency]",
                 "ignores NULL values (and rows whose frequency is NULL or not positive); NULL without a "
                 "value",
                 "Linear interpolation as Flink's, DOUBLE (ARRAY<DOUBLE> for an ARRAY of percentages). A "
                 "percentage outside [0, 1] is refused at planning (Flink fails the job)."),
    AggregateDoc(("BITMAP_BUILD_AGG", "BITMAP_BUILD_CARDINALITY_AGG"), "`[DISTINCT]` INT (TINYINT, SMALLINT)",
                 "ignores NULLs; NULL without a value",
                 "The set of the values (read unsigned: -1 is 4294967295) as a BITMAP, or its BIGINT "
                 "cardinality. " + _BITMAPS),
    AggregateDoc(("BITMAP_AND_AGG", "BITMAP_AND_CARDINALITY_AGG", "BITMAP_OR_AGG",
                  "BITMAP_OR_CARDINALITY_AGG", "BITMAP_XOR_AGG", "BITMAP_XOR_CARDINALITY_AGG"),
                 "`[DISTINCT]` BITMAP",
                 "ignores NULLs; NULL without a bitmap (an empty result is an empty bitmap)",
                 "The intersection, union or symmetric difference as a BITMAP, or its BIGINT cardinality. "
                 + _BITMAPS),
)
"""The aggregates of docs/functions.md; every one has conformance cases (tests/functions/cases.py;
FIRST_VALUE, LAST_VALUE, LISTAGG, ARRAY_AGG, JSON_ARRAYAGG, JSON_OBJECTAGG and PERCENTILE: the compat
cases tests/compat/cases/ordered_aggs_*, collect_aggs_*, json_objectagg_*, listagg_*, percentile_*,
rowwise_aggs_over)."""


def ordered(func: str, arg: SqlType | None) -> SqlType | None:
    """``arg``, the type of MIN / MAX (``func``: ``min``, ``max_retract`` ...) over it.

    Raises:
        PlanError: a VARIANT, which has no order, in Flink 2.3's words.
    """
    if arg is not None and arg.name == "VARIANT":
        name = "Max" if func.startswith("max") else "Min"
        msg = f"{name} aggregate function does not support type: ''VARIANT''. Please re-check the data type."
        raise PlanError(msg)
    return arg


def _numeric(func: str, arg: SqlType) -> None:
    if not arg.is_numeric:
        msg = f"{func.upper()} needs a numeric argument, got {arg}"
        raise PlanError(msg)
