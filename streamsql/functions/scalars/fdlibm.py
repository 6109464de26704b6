"""COSH, ATAN and ATAN2 as Java computes them: fdlibm's, as Flink 2.3 runs them (through StrictMath).

Java's ``StrictMath.cosh`` is fdlibm's ``__ieee754_cosh`` over fdlibm's own ``exp``, which is not
always the correctly rounded exponential that DuckDB's ``cosh`` builds on: Flink's COSH(1) is
1.543080634815244, DuckDB's 1.5430806348152437 (fdlibm's exp(1) is 2.7182818284590455, one unit
in the last place above e). So COSH runs here, per row, as fdlibm's C code does, operation by
operation (Python's float arithmetic is the same IEEE double arithmetic, without fused
multiply-adds). One step is not fdlibm's: for ``|x| < 0.5 ln 2`` its ``expm1`` is the C
library's; checked against Java 17's Math.cosh on 20,000 random values (a quarter of them there),
one differs, in that range, in the last digit.

ATAN and ATAN2 are fdlibm's ``atan`` (s_atan.c) and ``__ieee754_atan2`` (e_atan2.c) step by step,
with no C library call: DuckDB's (the C library's, correctly rounded) differ in the last digit now
and then (Flink's ATAN2(2024, -1.05) is 1.5713151014519153, DuckDB's 1.571315101451915); checked
against Flink 2.3's answers (tests/functions/difffuzz_regressions.txt).
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


# s_atan.c's constants: atan(0.5), atan(1), atan(1.5), atan(inf) in two parts, and the polynomial
_ATAN_HI = (4.63647609000806093515e-01, 7.85398163397448278999e-01, 9.82793723247329054082e-01,
            1.57079632679489655800e00)
_ATAN_LO = (2.26987774529616870924e-17, 3.06161699786838301793e-17, 1.39033110312309984516e-17,
            6.12323399573676603587e-17)
_AT = (3.33333333333329318027e-01, -1.99999999998764832476e-01, 1.42857142725034663711e-01,
       -1.11111104054623557880e-01, 9.09088713343650656196e-02, -7.69187620504482999495e-02,
       6.66107313738753120669e-02, -5.83357013379057348645e-02, 4.97687799461593236017e-02,
       -3.65315727442169155270e-02, 1.62858201153657823623e-02)
# e_atan2.c's
_PI_O_4 = 7.8539816339744827900e-01
_PI_O_2 = 1.5707963267948965580e00
_PI = 3.1415926535897931160e00
_PI_LO = 1.2246467991473531772e-16


def fdlibm_atan(x: float) -> float:
    """Fdlibm's ``atan`` (s_atan.c), as Java's StrictMath.atan."""
    hx = _high_word(x)
    negative = hx >> 31
    ix = hx & 0x7FFFFFFF
    if ix >= 0x44100000:  # |x| >= 2**66, or NaN
        if math.isnan(x):
            return x + x
        return -(_ATAN_HI[3] + _ATAN_LO[3]) if negative else _ATAN_HI[3] + _ATAN_LO[3]
    if ix < 0x3FDC0000:  # |x| < 0.4375
        if ix < 0x3E200000:  # |x| < 2**-29: x itself
            return x
        k = -1
    else:
        x = abs(x)
        if ix < 0x3FF30000:  # |x| < 1.1875
            if ix < 0x3FE60000:  # 7/16 <= |x| < 11/16
                k, x = 0, (2.0 * x - 1.0) / (2.0 + x)
            else:  # 11/16 <= |x| < 19/16
                k, x = 1, (x - 1.0) / (x + 1.0)
        elif ix < 0x40038000:  # |x| < 2.4375
            k, x = 2, (x - 1.5) / (1.0 + 1.5 * x)
        else:  # 2.4375 <= |x| < 2**66
            k, x = 3, -1.0 / x
    z = x * x
    w = z * z
    s1 = z * (_AT[0] + w * (_AT[2] + w * (_AT[4] + w * (_AT[6] + w * (_AT[8] + w * _AT[10])))))
    s2 = w * (_AT[1] + w * (_AT[3] + w * (_AT[5] + w * (_AT[7] + w * _AT[9]))))
    if k < 0:
        return x - x * (s1 + s2)
    z = _ATAN_HI[k] - ((x * (s1 + s2) - _ATAN_LO[k]) - x)
    return -z if negative else z


def fdlibm_atan2(y: float, x: float) -> float:
    """Fdlibm's ``__ieee754_atan2`` (e_atan2.c), as Java's StrictMath.atan2(y, x)."""
    if math.isnan(x) or math.isnan(y):
        return x + y
    if x == 1.0:
        return fdlibm_atan(y)
    m = (_high_word(y) >> 31) | ((_high_word(x) >> 30) & 2)  # 2 * sign(x) + sign(y)
    if y == 0.0:
        return (y, y, _PI, -_PI)[m]
    if x == 0.0:
        return -_PI_O_2 if y < 0 else _PI_O_2
    if math.isinf(x):
        if math.isinf(y):
            return (_PI_O_4, -_PI_O_4, 3.0 * _PI_O_4, -3.0 * _PI_O_4)[m]
        return (0.0, -0.0, _PI, -_PI)[m]
    if math.isinf(y):
        return -_PI_O_2 if y < 0 else _PI_O_2
    k = ((_high_word(y) & 0x7FFFFFFF) - (_high_word(x) & 0x7FFFFFFF)) >> 20
    if k > 60:  # |y / x| > 2**60
        z = _PI_O_2 + 0.5 * _PI_LO
    elif x < 0 and k < -60:  # |y| / x < -2**60
        z = 0.0
    else:
        z = fdlibm_atan(abs(y / x))
    if m == 0:
        return z
    if m == 1:
        return -z
    if m == 2:
        return _PI - (z - _PI_LO)
    return (z - _PI_LO) - _PI


_COSH = register(VectorFunction("__streamsql_java_cosh", "Function COSH",
                                lambda x: rowwise(fdlibm_cosh, (x,), pa.float64()), ("DOUBLE",), "DOUBLE"))


@scalar("COSH", group="arithmetic", sig=(("NUMERIC",),), result=fixed("DOUBLE"))
def cosh(c: Call) -> exp.Expression:
    """The hyperbolic cosine, as Java's Math.cosh (fdlibm; see the module docstring)."""
    return template(f"{_COSH.name}(CAST({{0}} AS DOUBLE))", *c.args)


_ATAN = register(VectorFunction("__streamsql_java_atan", "Function ATAN",
                                lambda x: rowwise(fdlibm_atan, (x,), pa.float64()), ("DOUBLE",), "DOUBLE"))
_ATAN2 = register(VectorFunction("__streamsql_java_atan2", "Function ATAN2",
                                 lambda y, x: rowwise(fdlibm_atan2, (y, x), pa.float64()),
                                 ("DOUBLE", "DOUBLE"), "DOUBLE"))


@scalar("ATAN", group="arithmetic", sig=(("NUMERIC",),), result=fixed("DOUBLE"))
def atan(c: Call) -> exp.Expression:
    """The arc tangent, as Java's Math.atan (fdlibm; see the module docstring)."""
    return template(f"{_ATAN.name}(CAST({{0}} AS DOUBLE))", *c.args)


@scalar("ATAN2", group="arithmetic", sig=(("NUMERIC", "NUMERIC"),), result=fixed("DOUBLE"))
def atan2(c: Call) -> exp.Expression:
    """ATAN2(y, x): the angle of the point (x, y), as Java's Math.atan2 (fdlibm; module docstring)."""
    return template(f"{_ATAN2.name}(CAST({{0}} AS DOUBLE), CAST({{1}} AS DOUBLE))", *c.args)
