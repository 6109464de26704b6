"""Java's ``Double.toString`` / ``Float.toString`` of a whole float column, vectorized.

Flink writes FLOAT/DOUBLE as Java does: the ``json`` format through Jackson (``1.0E20``,
``100.0``, ``1.0E-5``), the ``csv`` format, the print sink (``Row.toString``), CAST to STRING. The
rules
(``java.lang.Double#toString(double)``):

* NaN ``NaN``, infinities ``Infinity`` / ``-Infinity``, zeros ``0.0`` / ``-0.0``;
* ``1.0E-3 <= |x| < 1.0E7`` positionally with at least one digit after the point (``100.0``,
  ``0.001``, ``1234567.5``), everything else as ``d.dddE<exp>`` (``1.0E7``, ``1.23456789123E8``,
  ``2.5E-8``, ``-1.0E-4``);
* the digits: the shortest that round-trip to the value of its own width (a FLOAT's are the
  float32's: ``0.1``, not ``0.10000000149011612``), the closest on a tie — except for whole
  numbers ``2**p <= |x| < 2**63`` (``p`` the significand width: 53, FLOAT 24), which JDK 17
  writes from the integer's exact digits (:func:`_whole_digits`: ``Float.toString(1.5e10f)`` is
  ``1.50000005E10``).

This is the text of JDK 17, the JVM our Flink 2.3 oracle runs on here. Checked
value by value against JDK 17's ``Double.toString`` / ``Float.toString`` on 4.4 million values
(random bit patterns, decimals, powers of two, subnormals): they differ only where JDK 17 does not
write the shortest digits, which this module does (``tests/connectors/test_float_text.py``):

* some values above ``2**63`` (about 0.002 % of random doubles, 0.05 % of floats, all between
  ``1.4E19`` and ``7E25``): JDK 17 writes ``9.999999999999999E22`` for ``1e23``, ``...084E25``
  for ``...085E25``;
* about one power of two in six below ``2**-23`` (``2**-31``: JDK 17 ``4.6566128730773926E-10``,
  here ``4.656612873077393E-10``), ``Float.MIN_NORMAL`` (``1.17549435E-38``, here
  ``1.1754944E-38``) and a few subnormals (``1.58E-322``, here ``1.6E-322``).

(JDK 19 and later write the shortest digits everywhere, also for the whole numbers above.)

The shortest digits come from one ``orjson.dumps`` of a DOUBLE column (Python's ``repr``, which
in Java's positional range is already Java's text) and from Arrow's float32-to-string cast for a
FLOAT column (``.0`` added where it wrote neither point nor exponent); the values Java writes
with an exponent are rebuilt from their digits and exponent, read with numpy from the UTF-8
bytes, by Arrow string kernels. No Python per value (subnormals aside).
"""

from __future__ import annotations

import math

import numpy as np
import orjson
import pyarrow as pa
import pyarrow.compute as pc

#: ``_INSIGNIFICANT[p]``: the decimal digits below the first one of ``2**p`` (0 for p < 2).
_INSIGNIFICANT = np.array([len(str(2**p)) - 1 if p > 1 else 0 for p in range(64)], np.int64)


def java_float_text(col: pa.Array | pa.ChunkedArray, single: bool = False) -> pa.Array:
    """Java's ``Double.toString`` (``Float.toString`` when ``single``) of every value; NULL stays NULL.

    Args:
        col: a floating-point column.
        single: format as a Java ``float`` (FLOAT): the float32's shortest digits.

    Returns:
        A string array of the same length.
    """
    if isinstance(col, pa.ChunkedArray):
        col = col.combine_chunks() if col.num_chunks != 1 else col.chunk(0)
    col = col.cast(pa.float32() if single else pa.float64())
    if len(col) == 0:
        return pa.array([], pa.string())
    with np.errstate(invalid="ignore"):
        x = np.asarray(col.to_numpy(zero_copy_only=False), np.float64)  # NULL -> NaN
        a = np.abs(x)
        special = ~np.isfinite(x) | (x == 0)
        plain = (a >= 1e-3) & (a < 1e7)
    if plain.all():
        return _shortest(col, single)
    if not (plain.any() or special.any() or col.null_count):  # all positional-free: one pass
        tiny = a < (1.2e-38 if single else 2.3e-308)
        if not tiny.any():
            return _scientific(a, x < 0, single)
    if plain.any():
        out = pc.if_else(pa.array(plain), _shortest(col, single), pa.scalar(None, pa.string()))
    else:
        out = pa.nulls(len(col), pa.string())
    rows = np.flatnonzero(~(plain | special))
    if rows.size:
        out = _scatter(out, rows, _scientific(a[rows], x[rows] < 0, single))
    if special.any():
        out = _scatter(out, np.flatnonzero(special), pa.array(_special(x[special]), pa.string()))
    tiny = np.flatnonzero((a < (1.2e-38 if single else 2.3e-308)) & ~special)
    if tiny.size:  # subnormals: Java's two-digit minimum (Double.MIN_VALUE is 4.9E-324)
        out = _scatter(out, tiny, pa.array([_subnormal(x[i], single) for i in tiny], pa.string()))
    if col.null_count:
        out = pc.if_else(col.is_valid(), out, pa.scalar(None, pa.string()))
    return out


def _shortest(col: pa.Array, single: bool) -> pa.Array:
    """The shortest round-trip text of each value, positional in Java's plain range (``100.0``).

    A DOUBLE's is Python's ``repr`` (``100.0``, ``1e+20``, ``12345678.5``), written by one
    ``orjson.dumps`` of the column (:func:`_orjson_texts`); a FLOAT's is Arrow's float32 text
    (``100``, ``1e+20``), given the ``.0`` Java writes where it has neither point nor exponent.
    """
    if single:
        text = col.cast(pa.string())
        bare = pc.invert(pc.or_(pc.match_substring(text, "."), pc.match_substring(text, "e")))
        return pc.if_else(bare, pc.binary_join_element_wise(text, ".0", ""), text)
    # orjson writes a float64 array's values as it writes Python floats (ryu), without a Python
    # object per value (NULL -> NaN -> null, as None: that text is replaced by the caller)
    return _orjson_texts(np.ascontiguousarray(col.to_numpy(zero_copy_only=False), np.float64))


def _orjson_texts(values: list | np.ndarray) -> pa.Array:
    """The text orjson writes for each float (NaN/inf: ``null``), built from one ``orjson.dumps`` call.

    The list's text ``[a,b,c]`` holds no comma inside a number, so the commas are the separators:
    they are removed and the offsets computed around them.
    """
    n = len(values)
    inner = orjson.dumps(values, option=orjson.OPT_SERIALIZE_NUMPY)[1:-1]
    commas = np.flatnonzero(np.frombuffer(inner, np.uint8) == 44)
    if len(commas) != n - 1:  # pragma: no cover  (orjson never writes a comma inside a number)
        msg = "unexpected float text"
        raise pa.ArrowInvalid(msg)
    starts = np.empty(n + 1, np.int64)
    starts[0] = 0
    starts[1:n] = commas + 1
    starts[n] = len(inner) + 1
    offsets = (starts - np.arange(n + 1, dtype=np.int64)).astype(np.int32)
    data = inner.replace(b",", b"")
    return pa.Array.from_buffers(pa.string(), n, [None, pa.py_buffer(offsets), pa.py_buffer(data)])


def _scatter(out: pa.Array, rows: np.ndarray, values: pa.Array) -> pa.Array:
    """``out`` with ``values`` at ``rows`` (ascending)."""
    mask = np.zeros(len(out), bool)
    mask[rows] = True
    return pc.replace_with_mask(out, pa.array(mask), values)


def _scientific(a: np.ndarray, negative: np.ndarray, single: bool) -> pa.Array:
    """``[-]d.ddd E exp`` of positive finite magnitudes ``a`` (at least one digit after the point).

    The digits are the shortest, or JDK 17's for whole numbers (:func:`_whole_digits`).
    """
    whole = (a >= 2.0 ** (24 if single else 53)) & (a < 2.0**63)
    text = _shortest(pa.array(a, pa.float32() if single else pa.float64()), single)
    extra = np.zeros(len(a), np.int64)
    if whole.any():
        rows = np.flatnonzero(whole)
        digits, extra[rows] = _whole_digits(a[rows], single)
        text = _scatter(text, rows, digits)
    digits, exp = _digits_of(text)
    mantissa = pc.ascii_rpad(pc.utf8_replace_slice(digits, 1, 1, "."), 3, "0")  # d.ddd, d.0
    out = pc.binary_join_element_wise(
        mantissa, pc.utf8_replace_slice(pa.array(exp + extra).cast(pa.string()), 0, 0, "E"), "")
    if negative.any():
        out = pc.if_else(pa.array(negative), pc.utf8_replace_slice(out, 0, 0, "-"), out)
    return out


def _digits_of(text: pa.Array) -> tuple[pa.Array, np.ndarray]:
    """Significant digits (no leading or trailing zeros) and decimal exponent of the first digit.

    ``text``: the shortest text of positive finite values outside Java's plain range, as
    :func:`_shortest` writes it: ``1.5e+20`` → ``('15', 20)``, ``0.00012`` → ``('12', -4)``,
    ``123456789.5`` → ``('1234567895', 8)``, ``123456790`` → ``('12345679', 8)``. Read from the
    UTF-8 bytes with numpy: the point and the exponent go, the digits stay.
    """
    n = len(text)
    text = pa.concat_arrays([text]) if text.offset else text
    off = np.frombuffer(text.buffers()[1], np.int32, n + 1).astype(np.int64)
    b = np.frombuffer(text.buffers()[2], np.uint8, int(off[-1]))
    start, end = off[:-1], off[1:]
    cut = np.zeros(len(b), bool)  # bytes that are not digits of the mantissa
    point = np.flatnonzero(b == 46)
    point_row = np.searchsorted(off, point, "right") - 1
    digits_before = end - start  # digits before the point (all of them without one)
    removed = np.zeros(n, np.int64)
    exp = np.zeros(n, np.int64)
    e_at = np.flatnonzero(b == 101)
    if e_at.size:  # 'e', a sign, then one to three digits
        r = np.searchsorted(off, e_at, "right") - 1
        digits_before[r] = e_at - start[r]
        sign = b[e_at + 1]
        first = e_at + 1 + ((sign == 43) | (sign == 45))
        width = end[r] - first
        value = np.zeros(len(e_at), np.int64)
        for j in range(3):
            has = width > j
            value[has] = value[has] * 10 + b[first[has] + j] - 48
        exp[r] = np.where(sign == 45, -value, value)
        removed[r] = end[r] - e_at
        for j in range(5):
            p = e_at + j
            cut[p[p < end[r]]] = True
    digits_before[point_row] = point - start[point_row]
    cut[point] = True
    removed[point_row] += 1
    new_off = np.zeros(n + 1, np.int64)
    np.cumsum(end - start - removed, out=new_off[1:])
    raw = pa.Array.from_buffers(pa.string(), n, [None, pa.py_buffer(new_off.astype(np.int32)),
                                                 pa.py_buffer(b[~cut].tobytes())])
    lead = np.diff(new_off) - pc.binary_length(pc.ascii_ltrim(raw, "0")).to_numpy()
    return pc.ascii_trim(raw, "0"), exp + digits_before - 1 - lead


def _whole_digits(a: np.ndarray, single: bool) -> tuple[pa.Array, np.ndarray]:
    """The digits JDK 17 writes for whole numbers ``2**p <= a < 2**63``, and their extra exponent.

    The exact integer, rounded half up to drop ``k`` digits, where ``k`` is the number of decimal
    digits below the first one of ``2**(e - p - 1)`` (``e`` the binary exponent, ``p`` the
    significand width, 53 or 24): ``Float.toString(1.5e10f)`` is ``1.50000005E10`` (the float is
    15000000512, ``k`` = 2), ``Double.toString(2.82879384806159e17)`` is ``2.82879384806159008E17``
    (``k`` = 0), where the shortest digits are ``1.5E10`` and ``2.82879384806159E17``. Measured
    against JDK 17 (see the module docstring). Returns the kept digits as text and ``k``.
    """
    binexp = np.frexp(a)[1].astype(np.int64) - 1
    k = _INSIGNIFICANT[np.clip(binexp - (24 if single else 53) - 1, 0, 63)]
    v = a.astype(np.uint64)
    scale = (10**k).astype(np.uint64)
    q = v // scale + (2 * (v % scale) >= scale).astype(np.uint64)
    return pa.array(q).cast(pa.string()), k


def _special(values: np.ndarray) -> list[str]:
    """The text of NaN, the infinities and the zeros."""
    out = []
    for v in values:
        if math.isnan(v):
            out.append("NaN")
        elif math.isinf(v):
            out.append("Infinity" if v > 0 else "-Infinity")
        else:
            out.append("-0.0" if math.copysign(1.0, v) < 0 else "0.0")
    return out


def _subnormal(v: float, single: bool) -> str:
    """Java's text of a subnormal: at least two significant digits, the closest two (``4.9E-324``)."""
    f = np.float32(v) if single else np.float64(v)
    mant, exp = np.format_float_scientific(f, unique=True, trim="-").split("e")
    digits = mant.lstrip("-").replace(".", "")
    if len(digits) == 1:  # the closest two-digit decimal; it rounds to the value as the one digit does
        mant, exp = f"{abs(float(v)):.1e}".split("e")
        digits = mant.replace(".", "")
    sign = "-" if v < 0 else ""
    return f"{sign}{digits[0]}.{digits[1:].rstrip('0') or '0'}E{int(exp)}"
