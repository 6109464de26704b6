"""VAR_POP, VAR_SAMP (VARIANCE), STDDEV_POP and STDDEV_SAMP (STDDEV), as Flink 2.3 computes them.

Flink 2.3 rewrites each into its internal ``WELFORD_M2`` aggregate (flink-table-runtime
``WelfordM2AggFunction``) and a COUNT::

    VAR_POP(x)     = CAST(M2 / COUNT(x) AS type of x)
    VAR_SAMP(x)    = CAST(M2 / (COUNT(x) - 1) AS type of x)        NULL for a single value
    STDDEV_*(x)    = CAST(POWER(VAR_*(x), 0.5) AS type of x)

``M2`` is Welford's online sum of squared deviations, over the values as DOUBLE, updated row by
row in arrival order (``accumulate``; a retraction undoes a row with ``retract``; window slices
and sessions ``merge``, Chan's formula), and NULL when it comes out negative (unmatched
retractions). A value that overflows makes it Infinity (VAR_POP of -0.25, 1E300 is Infinity, not
the NaN of a sum-of-squares formula), and the last digits are those of Welford's updates
(checked against Flink 2.3 by the differential fuzzer's regression cases). The cast to the
argument's type is Java's: an integer type truncates toward zero and saturates (BIGINT:
9223372036854775807), a TINYINT or SMALLINT keeps the int's low bits; FLOAT rounds to the nearest
float; a DECIMAL(p, s) argument gives a DECIMAL(38, max(6, s)) rounded half up, NULL past 38
digits (``DecimalData.fromBigDecimal``: VAR_SAMP of DECIMALs near 1E16 is about 1E32, 39 digits).

They run row-wise, as FIRST_VALUE does (:mod:`streamsql.functions.ordered_aggregates`): the
accumulator is ``["M2", n, mean, m2]`` in keyed state. The tag tells it from the ``[count, sum,
sum of squares]`` this family kept before 2026-12-02: a checkpoint with one fails the job (it
would be read as garbage) rather than answer. With DISTINCT (``<name>_distinct``) the accumulator is
``[{value: count}, ["M2", n, mean, m2]]``: Flink's distinct view around the same updates.
"""

from __future__ import annotations

import math
from decimal import Decimal

import pyarrow as pa

from streamsql.core.errors import ExecutionError, PlanError
from streamsql.core.float_text import java_float_text
from streamsql.core.types import SqlType
from streamsql.functions.distinct_view import DistinctView
from streamsql.functions.ordered_aggregates import register_builtin
from streamsql.functions.scalars.decimal_product import from_big_decimal
from streamsql.functions.scalars.typerules import MAX_PRECISION

_INTEGERS = {"TINYINT": 8, "SMALLINT": 16, "INT": 32, "BIGINT": 64}
_SUPPORTED = (*_INTEGERS, "FLOAT", "DOUBLE", "DECIMAL")
_TAG = "M2"


class Welford:
    """One of the variance family over Flink's ``WelfordM2AggFunction`` accumulator ``[n, mean, m2]``.

    Args:
        name: the SQL name (in errors).
        sample: divide by ``n - 1`` (VAR_SAMP, STDDEV_SAMP) instead of ``n``.
        root: the square root (``POWER(v, 0.5)``: STDDEV_*).
        arg: the argument's SQL type, which the result is cast to (set per call by :func:`_bound`).
    """

    def __init__(self, name: str, sample: bool, root: bool, arg: SqlType | None = None):
        """A function of the family (see the class docstring)."""
        self.name, self.sample, self.root, self.arg = name, sample, root, arg

    def create_accumulator(self) -> list:
        """``["M2", n, mean, m2]``: no value yet."""
        return [_TAG, 0, 0.0, 0.0]

    def accumulate(self, acc: list, value) -> None:
        """Welford's update with a non-NULL ``value`` (as a DOUBLE); ``n`` counts even when not positive."""
        if value is None:
            return
        self._check(acc)
        acc[1] += 1
        if acc[1] <= 0:
            return
        val = float(value)
        delta = val - acc[2]
        acc[2] += delta / acc[1]
        acc[3] += delta * (val - acc[2])

    def retract(self, acc: list, value) -> None:
        """Welford's update undone for a non-NULL ``value`` (Flink's ``retract``)."""
        if value is None:
            return
        self._check(acc)
        acc[1] -= 1
        if acc[1] <= 0:
            if acc[1] == 0:
                acc[2], acc[3] = 0.0, 0.0
            return
        val = float(value)
        delta2 = val - acc[2]
        acc[2] -= delta2 / acc[1]
        acc[3] -= (val - acc[2]) * delta2

    def merge(self, acc: list, others: list) -> None:
        """Chan's combination of the accumulators ``others`` into ``acc`` (Flink's ``merge``)."""
        self._check(acc)
        negative = 0
        for other in others:
            self._check(other)
            _, n, mean, m2 = other
            if n <= 0:
                negative += n
                continue
            if acc[1] == 0:
                acc[1:] = [n, mean, m2]
                continue
            count = acc[1] + n
            delta = mean - acc[2]
            new_mean = acc[2] + n / count * delta
            acc[3] = acc[3] + m2 + acc[1] * n / count * delta * delta
            acc[1], acc[2] = count, new_mean
        acc[1] += negative
        if acc[1] <= 0:
            acc[2], acc[3] = 0.0, 0.0

    def get_value(self, acc: list):
        """The variance (or its root) of the accumulated values, cast to the argument's type."""
        self._check(acc)
        _, n, _, m2 = acc
        if n <= 0 or m2 < 0 or (self.sample and n == 1):
            return None
        value = m2 / (n - 1 if self.sample else n)
        if self.root:
            value = math.pow(value, 0.5) if not value < 0 else math.nan  # Java's Math.pow
        return _cast(value, self.arg)

    def _check(self, acc: list) -> None:
        """Raise unless ``acc`` is this family's accumulator.

        Raises:
            ExecutionError: ``acc`` is another one (restored from an older checkpoint).
        """
        if not acc or acc[0] != _TAG:
            msg = (f"{self.name}: its state was written by an older StreamSQL (a sum-of-squares "
                   "accumulator); start the job without that checkpoint")
            raise ExecutionError(msg)


def _cast(value: float, t: SqlType | None):
    """Flink's CAST of the DOUBLE result to the argument's type ``t`` (see the module docstring)."""
    if t is None or t.name in ("DOUBLE", "FLOAT"):
        return value
    if t.name == "DECIMAL":
        if math.isnan(value) or math.isinf(value):
            return None
        # BigDecimal.valueOf(double): the digits of JDK 17's Double.toString, not Python's shortest
        # repr (a whole number above 2**53 keeps its exact digits: 6.5219089190303529E18)
        text = java_float_text(pa.array([value], pa.float64()))[0].as_py()
        return from_big_decimal(Decimal(text), MAX_PRECISION, max(6, t.scale or 0))
    return java_narrow(value, _INTEGERS[t.name])


def java_narrow(value: float, bits: int) -> int:
    """Java's cast of a double to an integer of ``bits`` bits, as Flink casts the variance.

    NaN is 0, the value is truncated toward zero and saturates at the int (or, for 64 bits, long) range,
    and a TINYINT or SMALLINT keeps the int's low bits (Flink 2.3: VAR_SAMP of INTs whose variance
    passes 2^31 is 2147483647, of BIGINTs past 2^63 9223372036854775807).
    """
    if math.isnan(value):
        return 0
    wide = 64 if bits == 64 else 32
    lo, hi = -(1 << (wide - 1)), (1 << (wide - 1)) - 1
    n = hi if value >= hi else lo if value <= lo else int(value)
    if bits < 32:
        n = (n + (1 << (bits - 1))) % (1 << bits) - (1 << (bits - 1))
    return n


def _result_type(name: str):
    def result_type(arg: SqlType | None) -> SqlType:
        """The argument's type (a DECIMAL: DECIMAL(38, max(6, s)), as Flink's AVG), nullable.

        Raises:
            PlanError: an argument that is not a number.
        """
        if arg is None or arg.name not in _SUPPORTED:
            msg = f"{name} needs a numeric argument, got {arg}"
            raise PlanError(msg)
        if arg.name == "DECIMAL":
            return SqlType("DECIMAL", 38, max(6, arg.scale or 0))
        return SqlType(arg.name)

    return result_type


def variance_type(arg: SqlType) -> SqlType:
    """The result type of the family over an argument of type ``arg`` (see ``_result_type``).

    Raises:
        PlanError: an argument that is not a number.
    """
    return _result_type("VARIANCE")(arg)


def _family(func: str, name: str, sample: bool, root: bool, distinct: bool = False):
    """The row-wise aggregate class of one function of the family (its ``AggSpec.func``: ``func``).

    ``distinct``: ``F(DISTINCT x)``, Welford's updates fed by Flink's distinct view
    (:class:`~streamsql.functions.distinct_view.DistinctView`: a value's first arrival and last
    retraction only), as Flink 2.3 rewrites it to ``WELFORD_M2(DISTINCT x)`` and ``COUNT(DISTINCT x)``.
    """

    def impl(arg: SqlType | None = None):
        welford = Welford(name, sample, root, arg)
        return DistinctView(welford) if distinct else welford

    cls = register_builtin(func, name, impl(), 1, _result_type(name))
    bind = cls.bind

    def bound(self, names: list[str]) -> None:
        """Bind the argument columns and give this call's function its argument's SQL type."""
        bind(self, names)
        arg = SqlType.from_arrow(self.arg_type) if self.arg_type else None
        self.function = type(self.function)(self.function.name, impl(arg), self.function.arity)

    cls.bind = bound
    return cls


VARIANCE_FUNCTIONS = tuple(
    _family(func + ("_distinct" if distinct else ""), func.upper(), sample=func.endswith("samp"),
            root=func.startswith("stddev"), distinct=distinct)
    for func in ("var_pop", "var_samp", "stddev_pop", "stddev_samp") for distinct in (False, True))
"""The variance family's aggregate classes, by their ``AggSpec.func`` (``<name>[_distinct]``)."""
