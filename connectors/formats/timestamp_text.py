"""Timestamp text as Flink 2.3's JSON format writes it: the fraction without trailing zeros.

Flink's ``JsonRowDataSerializationSchema`` formats TIMESTAMP with ``TimeFormats.SQL_TIMESTAMP_FORMAT``
(``ISO_LOCAL_DATE ' ' HH:mm:ss`` + ``appendFraction(NANO_OF_SECOND, 0, 9, true)``; the ISO-8601
standard uses ``ISO_LOCAL_TIME``, the same fraction), TIMESTAMP_LTZ the same with a ``Z``. A
fraction of width 0 to 9 prints only the digits up to the last non-zero one, and no ``.`` when
the fraction is zero: Flink 2.3 wrote ``"2024-05-01 10:00:00"``, ``"2024-05-01 10:00:00.1"`` and
``"2024-05-01 10:00:00.12Z"`` for TIMESTAMP(3) / TIMESTAMP_LTZ(3) values read from ``...00.000``,
``...00.1`` and ``...00.120`` (recorded in ``tests/connectors/json_encode_flink.json``). The
column's precision bounds the digits (values are truncated to it on read and by casts).
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

_WHOLE = 19  # len("yyyy-MM-dd HH:mm:ss")
#: RE2, replaced by ``\1``: a fraction's trailing zeros go, and a fraction of zeros with its point.
TRAILING_ZEROS = r"(\.[0-9]*[1-9])0+$|\.0+$"


def trim_fraction(text: pa.Array, digits: int) -> pa.Array:
    """``text`` (``yyyy-MM-dd HH:mm:ss.f…f``, ``digits`` fraction digits) without trailing zeros.

    Vectorized over the UTF-8 bytes when every value has the same width (4-digit years): the
    kept length of each row comes from its trailing ``0`` bytes; other columns (years beyond
    9999, before 1) go through one RE2 replacement. NULL stays NULL.

    Args:
        text: a string column as Arrow's timestamp → string cast (sliced to ``digits``) writes it.
        digits: the fraction digits of every value (0: nothing to trim).
    """
    if digits <= 0 or len(text) == 0:
        return text
    text = pa.concat_arrays([text]) if text.offset else text  # offsets from 0, for the buffers below
    width = _WHOLE + 1 + digits
    filled = pc.fill_null(text, "0000-00-00 00:00:00." + "1" * digits) if text.null_count else text
    offsets = np.frombuffer(filled.buffers()[1], np.int32, len(filled) + 1)
    if offsets[0] != 0 or offsets[-1] != width * len(filled) or not (np.diff(offsets) == width).all():
        return pc.replace_substring_regex(text, TRAILING_ZEROS, r"\1")
    rows = np.frombuffer(filled.buffers()[2], np.uint8, width * len(filled)).reshape(len(filled), width)
    zeros = np.zeros(len(filled), np.int32)  # trailing '0's of the fraction
    run = np.ones(len(filled), bool)
    for j in range(1, digits + 1):
        run &= rows[:, -j] == 48
        zeros += run
    kept = np.where(zeros == digits, _WHOLE, width - zeros).astype(np.int32)  # all zeros: no '.' either
    if text.null_count:
        kept[~text.is_valid().to_numpy(zero_copy_only=False)] = 0
    validity = text.buffers()[0] if text.null_count else None
    try:
        return _prefixes(rows, kept, validity, text.null_count, filled.buffers()[2])
    except (AttributeError, pa.ArrowNotImplementedError):  # pyarrow < 16: no string views
        pass
    data = rows[np.arange(width) < kept[:, None]]
    new_offsets = np.zeros(len(filled) + 1, np.int32)
    new_offsets[1:] = np.cumsum(kept)
    return pa.Array.from_buffers(
        pa.string(), len(text), [validity, pa.py_buffer(new_offsets), pa.py_buffer(data.tobytes())],
        null_count=text.null_count,
    )


def _prefixes(rows: np.ndarray, kept: np.ndarray, validity, null_count: int, data: pa.Buffer) -> pa.Array:
    """The first ``kept[i]`` bytes of each row of ``rows`` (fixed width, in ``data``) as a string array.

    Arrow string views over ``data`` (16 bytes a row: length, 4-byte prefix, buffer 0, offset;
    every kept length is ≥ 19, past the 12 bytes a view holds inline, a NULL's is 0), then one
    cast to a plain string array: Arrow's copy of the kept bytes, ~0.03 µs a row less than a
    numpy gather through a ``width``-column mask.

    Raises:
        AttributeError, pyarrow.ArrowNotImplementedError: a pyarrow without string views.
    """
    n, width = rows.shape
    views = np.zeros((n, 4), np.int32)
    views[:, 0] = kept
    views[:, 1] = rows[:, :4].copy().view(np.int32)[:, 0]
    views[:, 3] = np.arange(0, n * width, width, dtype=np.int32)
    if null_count:
        views[kept == 0] = 0  # an empty view is all zeros (inline)
    arr = pa.Array.from_buffers(pa.string_view(), n, [validity, pa.py_buffer(views), data],
                                null_count=null_count)
    return arr.cast(pa.string())
