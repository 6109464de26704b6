"""COSH as Java computes it: fdlibm's algorithm, which Flink 2.3 runs (Math.cosh → StrictMath).

Java's ``StrictMath.cosh`` is fdlibm's ``__ieee754_cosh`` over fdlibm's own ``exp``, which is not
always the correctly rounded exponential that DuckDB's ``cosh`` builds on: Flink's COSH(1) is
1.543080634815244, DuckDB's 1.5430806348152437 (fdlibm's exp(1) is 2.7182818284590455, one unit
in the last place above e). So COSH runs here, per row, as fdlibm's C code does, operation by
operation (Python's float arithmetic is the same IEEE double arithmetic, without fused
multiply-adds). One step is not fdlibm's: for ``|x| < 0.5 ln 2`` its ``expm1`` is the C
library's; checked against Java 17's Math.cosh on 20,000 random values (a quarter of them there),
one differs, in that range, in the last digit.
"""

from __future__ import annotations

import math
import struct

import pyarrow as pa
from sqlglot import exp

from streamsql.functions.python_functions import VectorFunction, register, rowwise
from streamsql.functions.scalars.registry import Call, fixed, scalar, template

# e_exp.c's constants
_O_THRESHOLD = 7.09782712893383973096e02
_U_THRESHOLD = -7.45133219101941108420e02
_LN2_HI = (6.93147180369123816490e-01, -6.93147180369123816490e-01)
_LN2_LO = (1.90821492927058770002e-10, -1.90821492927058770002e-10)
_INV_LN2 = 1.44269504088896338700e00
_HALF = (0.5, -0.5)
_P1 = 1.66666666666666019037e-01
_P2 = -2.77777777770155933842e-03
_P3 = 6.61375632143793436117e-05
_P4 = -1.65339022054652515390e-06
_P5 = 4.13813679705723846039e-08
_TWOM1000 = 9.33263618503218878990e-302


def _high_word(x: float) -> int:
    """Fdlibm's ``__HI(x)``: the upper 32 bits of the double, as an unsigned int."""
    return struct.unpack(">Q", struct.pack(">d", x))[0] >> 32


def fdlibm_exp(x: float) -> float:
    """Fdlibm's ``__ieee754_exp`` (e_exp.c), as Java's StrictMath.exp."""
    hx = _high_word(x)
    xsb = (hx >> 31) & 1
    hx &= 0x7FFFFFFF
    if hx >= 0x40862E42:  # |x| >= 709.78...: non-finite, overflow or underflow
        if math.isnan(x):
            return x
        if math.isinf(x):
            return x if xsb == 0 else 0.0
        if x > _O_THRESHOLD:
            return math.inf
        if x < _U_THRESHOLD:
            return 0.0
    k, hi, lo = 0, 0.0, 0.0
    if hx > 0x3FD62E42:  # |x| > 0.5 ln2: argument reduction
        if hx < 0x3FF0A2B2:  # and |x| < 1.5 ln2
            hi, lo, k = x - _LN2_HI[xsb], _LN2_LO[xsb], 1 - xsb - xsb
        else:
            k = int(_INV_LN2 * x + _HALF[xsb])
            t = float(k)
            hi = x - t * _LN2_HI[0]
            lo = t * _LN2_LO[0]
        x = hi - lo
    elif hx < 0x3E300000:  # |x| < 2**-28
        return 1.0 + x
    t = x * x
    c = x - t * (_P1 + t * (_P2 + t * (_P3 + t * (_P4 + t * _P5))))
    if k == 0:
        return 1.0 - ((x * c) / (c - 2.0) - x)
    y = 1.0 - ((lo - (x * c) / (2.0 - c)) - hi)
    if k >= -1021:
        return math.ldexp(y, k)
    return math.ldexp(y, k + 1000) * _TWOM1000


def fdlibm_cosh(x: float) -> float:
    """Fdlibm's ``__ieee754_cosh`` (e_cosh.c), as Java's Math.cosh (see the module docstring)."""
    ix = _high_word(x) & 0x7FFFFFFF
    if ix >= 0x7FF00000:  # INF or NaN
        return x * x
    a = abs(x)
    if ix < 0x3FD62E43:  # |x| in [0, 0.5 ln2]
        t = math.expm1(a)
        w = 1.0 + t
        if ix < 0x3C800000:
            return w
        return 1.0 + (t * t) / (w + w)
    if ix < 0x40360000:  # |x| in [0.5 ln2, 22]
        t = fdlibm_exp(a)
        return 0.5 * t + 0.5 / t
    if ix < 0x40862E42:  # |x| in [22, log(maxdouble)]
        return 0.5 * fdlibm_exp(a)
    if a <= 7.10475860073943863426e02:  # up to the overflow threshold
        w = fdlibm_exp(0.5 * a)
        t = 0.5 * w
        return t * w
    return math.inf


_COSH = register(VectorFunction("__streamsql_java_cosh", "Function COSH",
                                lambda x: rowwise(fdlibm_cosh, (x,), pa.float64()), ("DOUBLE",), "DOUBLE"))


@scalar("COSH", group="arithmetic", sig=(("NUMERIC",),), result=fixed("DOUBLE"))
def cosh(c: Call) -> exp.Expression:
    """The hyperbolic cosine, as Java's Math.cosh (fdlibm; see the module docstring)."""
    return template(f"{_COSH.name}(CAST({{0}} AS DOUBLE))", *c.args)
