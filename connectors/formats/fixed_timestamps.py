"""Timestamp text of one fixed width: a numpy check and Arrow's cast, the JSON/CSV fast path's common case.

The general path (an RE2 check of every value that the text has the shape Arrow's string →
timestamp cast reads as Flink does, then that cast) costs ~0.13 CPU-µs per value, nearly all of
it the RE2 check. When every value has the same width, each field sits at a fixed byte position,
so numpy checks the shape instead (the separators at their positions, a digit everywhere else:
what the RE2 pattern says for that width), and Arrow's cast reads the values —
the general path's own cast, so its values (~0.015 µs per value; numpy's calendar arithmetic
before it, sessions 25–33, took 0.04–0.08: benchmarks/README.md, session 34). Anything else — a
NULL, mixed widths, or text the cast refuses (a day past its month's end, ``24:00:00``, second 60,
a time beyond int64 nanoseconds) — answers None and the caller takes the
general path, which decides as before: this only ever gives the value that path gives.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

_DIGIT_POS = (0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18)  # of "yyyy-MM-dd HH:mm:ss"
_SEPS = ((4, 45), (7, 45), (13, 58), (16, 58))  # '-', '-', ':', ':'


def _rows(text: pa.Array) -> np.ndarray | None:
    """The UTF-8 bytes of ``text`` as an (n, width) array when every value has one width, else None."""
    if len(text) == 0 or text.null_count or not pa.types.is_string(text.type):
        return None
    offsets = np.frombuffer(text.buffers()[1], np.int32, len(text) + 1, text.offset * 4)
    width = int(offsets[1] - offsets[0])
    if int(offsets[-1] - offsets[0]) != width * len(text) or not (np.diff(offsets) == width).all():
        return None
    data = np.frombuffer(text.buffers()[2], np.uint8, width * len(text), int(offsets[0]))
    return data.reshape(len(text), width)


def parse_fixed(text: pa.Array | pa.ChunkedArray, sep: int, zulu: bool) -> pa.Array | None:
    """``timestamp('ns')`` of ``yyyy-MM-dd<sep>HH:mm:ss[.f…f][Z]`` text, or None (see the module docstring).

    Args:
        text: the column's text (no NULL, one width: 19, or 21-29 with 1-9 fraction digits; +1 with ``Z``).
        sep: the byte between date and time (``b' '`` SQL, ``b'T'`` ISO-8601).
        zulu: the text ends with ``Z`` (TIMESTAMP_LTZ; the result is then ``tz='UTC'``).
    """
    if isinstance(text, pa.ChunkedArray):  # Arrow's JSON reader gives a chunk per block it parsed
        parts = [parse_fixed(c, sep, zulu) for c in text.chunks]
        return None if not parts or None in parts else pa.chunked_array(parts)
    rows = _rows(text)
    if rows is None:
        return None
    width = rows.shape[1] - zulu
    frac = width - 20  # fraction digits
    if not (width == 19 or 1 <= frac <= 9):
        return None
    if zulu and not (rows[:, -1] == 90).all():  # 'Z'
        return None
    marks = [*_SEPS, (10, sep)] + ([(19, 46)] if frac > 0 else [])  # '.'
    for at, byte in marks:
        if not (rows[:, at] == byte).all():
            return None
    digits = rows[:, list(_DIGIT_POS) + list(range(20, 20 + max(frac, 0)))] - np.uint8(48)  # wraps below '0'
    if (digits > 9).any():
        return None
    if zulu:
        text = pc.utf8_slice_codeunits(text, 0, -1)  # the 'Z', as the general path
    try:
        ns = text.cast(pa.timestamp("ns"))  # the general path's cast: its values, its refusals
    except pa.ArrowInvalid:
        return None
    return ns.cast(pa.timestamp("ns", tz="UTC")) if zulu else ns
