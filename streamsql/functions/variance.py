"""VAR_POP, VAR_SAMP (VARIANCE), STDDEV_POP and STDDEV_SAMP (STDDEV), as Flink computes them.

Flink computes each from the sums of the values and of their squares, in DOUBLE, and casts the
result to the argument's type (checked against Flink 2.3 by the conformance cases)::

    VAR_POP(x)     = (SUM(x * x) - SUM(x) * SUM(x) / COUNT(x)) / COUNT(x)
    VAR_SAMP(x)    = (SUM(x * x) - SUM(x) * SUM(x) / COUNT(x)) / NULLIF(COUNT(x) - 1, 0)
    STDDEV_*(x)    = POWER(VAR_*(x), 0.5)

so over integers the result is truncated toward zero (VAR_POP of INT 1, 2 is 0). The partial
state is ``(non-NULL count, sum, sum of squares)``, signed over a changelog (a retraction
subtracts) and combinable (window slices); the sums are DOUBLE, as Flink's, so a result may
differ from Flink's in the last bits when their additions happen in another order (a batch's
partial sum is added to the state at once). DECIMAL and FLOAT arguments are refused at planning
(not supported yet).
"""

from __future__ import annotations

import math

import pyarrow as pa

from streamsql.core.errors import PlanError
from streamsql.core.types import SqlType
from streamsql.functions.aggregate_function import AggregateFunction

_SUPPORTED = ("TINYINT", "SMALLINT", "INT", "BIGINT", "DOUBLE")


class VarPop(AggregateFunction):
    """``VAR_POP(x)``: partial state ``(count, sum, sum of squares)`` of the non-NULL values."""

    func = "var_pop"
    width = 3
    sample = False
    root = False

    def __post_init__(self) -> None:
        super().__post_init__()
        self.integer = pa.types.is_integer(self.arg_type)

    @classmethod
    def result_type(cls, arg: SqlType | None) -> SqlType:
        """The argument's type, as Flink.

        Raises:
            PlanError: an argument that is not an integer or a DOUBLE.
        """
        if arg is None or arg.name not in _SUPPORTED:
            msg = f"{cls.func.upper()} of {arg} is not supported yet (supported: integers and DOUBLE)"
            raise PlanError(msg)
        return SqlType(arg.name)

    def partial(self, sign: str | None) -> list[str]:
        """The (signed) non-NULL count, sum and sum of squares."""
        x = f"{self.arg}::DOUBLE"  # Flink sums in DOUBLE
        if sign:
            return [f"sum(CASE WHEN {self.arg} IS NOT NULL THEN {sign} ELSE 0 END)::BIGINT",
                    f"sum({sign} * {x})::DOUBLE", f"sum({sign} * {x} * {x})::DOUBLE"]
        return [f"count({self.arg})::BIGINT", f"sum({x})::DOUBLE", f"sum({x} * {x})::DOUBLE"]

    def combine(self) -> list[str]:
        """Sums of the counts, sums and sums of squares."""
        c, s, q = self.columns
        return [f"sum({c})::BIGINT", f"sum({s})::DOUBLE", f"sum({q})::DOUBLE"]

    def finish(self, parts):
        """The result of each combined state (see :meth:`result`)."""
        rows = zip(*(p.to_pylist() for p in parts))
        return pa.array([self.result([n, s or 0, q or 0]) for n, s, q in rows], self.out_type)

    def create(self):
        """``[count, sum, sum of squares]``."""
        return [0, 0, 0]

    def fold(self, accs, slot, parts) -> None:
        """Add counts, sums and sums of squares."""
        for acc, n, s, q in zip(accs, *parts):
            cur = acc[slot]
            cur[0] += n
            cur[1] += s or 0
            cur[2] += q or 0

    def merge(self, a, b):
        """Add ``b``'s state to ``a``'s."""
        return [x + y for x, y in zip(a, b)]

    def result(self, acc):
        """Flink's formula over the state (None without a value, or with one for a sample)."""
        n, s, q = acc
        if n == 0 or (self.sample and n == 1):
            return None
        s, q = float(s), float(q)
        value = (q - s * s / n) / (n - 1 if self.sample else n)
        if self.root:
            value = math.sqrt(value) if value >= 0 else math.nan  # Java's Math.pow(negative, 0.5)
        if not self.integer:
            return value
        return java_narrow(value, self.arg_type.bit_width)


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


class VarSamp(VarPop):
    """``VAR_SAMP(x)`` (and ``VARIANCE``): the sample variance, NULL for fewer than two values."""

    func = "var_samp"
    sample = True


class StddevPop(VarPop):
    """``STDDEV_POP(x)``: the square root of VAR_POP, in the argument's type."""

    func = "stddev_pop"
    root = True


class StddevSamp(VarPop):
    """``STDDEV_SAMP(x)`` (and ``STDDEV``): the square root of VAR_SAMP, in the argument's type."""

    func = "stddev_samp"
    sample = True
    root = True


VARIANCE_FUNCTIONS = (VarPop, VarSamp, StddevPop, StddevSamp)
"""The variance family's aggregate function classes."""
