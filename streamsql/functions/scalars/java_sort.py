"""ARRAY_SORT of DOUBLE and FLOAT elements in the order Flink 2.3's comparator leaves them.

Flink's ``ArraySortFunction`` sorts the boxed elements with ``java.util.Arrays.sort`` and a
comparator that is no total order for floating point: read from Flink 2.3's answers (difffuzz
regressions ``ARRAY_SORT(ARRAY[2.0E0, NaN, 1.0E0])`` is ``[1.0, NaN, 2.0]``, ``ARRAY[-0.0, 0.0]``
and ``ARRAY[0.0, -0.0]`` both come out reversed), two elements compare 0 when they are
``Double.equals`` (the same bits, every NaN alike), 1 when the first is greater, else -1: a NaN is
"less" than anything it is compared with, and so is each zero than the other. The result then
depends on the algorithm's exact steps, so they are Java's: ``Arrays.sort`` runs TimSort, which
for fewer than 32 elements finds the leading run (reversing a descending one) and inserts the
rest by binary search (``TimSort.countRunAndMakeAscending`` and ``binarySort``). NULLs go first
or last by ``Comparator.nullsFirst``/``nullsLast``; descending negates the comparator.

Arrays of 32 elements or more whose order depends on this (a NaN, or both zeros) fail the job
with a message (TimSort's merging steps are not reproduced); the others, and every array
without a NaN or both zeros, are sorted by any stable sort (the caller's DuckDB ``list_sort``).
"""

from __future__ import annotations

import math
import struct
from collections.abc import Callable

import pyarrow as pa

from streamsql.core.py_values import py_values

MIN_MERGE = 32
"""TimSort's run length below which it sorts by binary insertion alone (``TimSort.MIN_MERGE``)."""


def _bits(x: float) -> int:
    """Java's ``Double.doubleToLongBits``: the bits, every NaN as the canonical one."""
    return -1 if math.isnan(x) else struct.unpack("<q", struct.pack("<d", x))[0]


def _comparator(ascending: bool, nulls_first: bool) -> Callable[[float | None, float | None], int]:
    """Flink's element comparator, wrapped in ``Comparator.nullsFirst``/``nullsLast``."""
    sign = 1 if ascending else -1
    none = -1 if nulls_first else 1

    def compare(a: float | None, b: float | None) -> int:
        if a is None or b is None:
            return 0 if a is None and b is None else (none if a is None else -none)
        if _bits(a) == _bits(b):
            return 0
        return sign * (1 if a > b else -1)

    return compare


def java_sort(values: list, ascending: bool, nulls_first: bool) -> list:
    """``values`` in the order ``Arrays.sort(values, comparator)`` leaves them (fewer than 32).

    Raises:
        ValueError: 32 elements or more (TimSort's merges are not reproduced).
    """
    a = list(values)
    n = len(a)
    if n < 2:
        return a
    if n >= MIN_MERGE:
        msg = (f"ARRAY_SORT of {n} DOUBLE or FLOAT elements holding a NaN, or both 0.0 and -0.0, is not "
               f"supported (Flink's order for them is reproduced below {MIN_MERGE} elements)")
        raise ValueError(msg)
    return small_timsort(a, _comparator(ascending, nulls_first))


def small_timsort(a: list, c: Callable[[object, object], int]) -> list:
    """Sort ``a`` in place as Java's ``Arrays.sort(a, c)`` does below 32 elements, and return it.

    ``TimSort.countRunAndMakeAscending`` then ``binarySort``: the exact steps matter when ``c`` is
    no total order (Flink's comparators over NaN). The caller checks ``len(a) < MIN_MERGE``.
    """
    n = len(a)
    if n < 2:
        return a
    # TimSort.countRunAndMakeAscending: the leading run, a strictly descending one reversed
    run = 2
    if c(a[1], a[0]) < 0:
        while run < n and c(a[run], a[run - 1]) < 0:
            run += 1
        a[:run] = a[:run][::-1]
    else:
        while run < n and c(a[run], a[run - 1]) >= 0:
            run += 1
    # TimSort.binarySort: each further element inserted after its equals (left moves on at 0)
    for start in range(run, n):
        pivot, left, right = a[start], 0, start
        while left < right:
            mid = (left + right) >> 1
            if c(pivot, a[mid]) < 0:
                right = mid
            else:
                left = mid + 1
        a[left + 1:start + 1] = a[left:start]
        a[left] = pivot
    return a


def sort_arrays(arrays: pa.ChunkedArray, ascending: pa.ChunkedArray, nulls_first: pa.ChunkedArray,
                element: pa.DataType) -> pa.Array:
    """:func:`java_sort` of each array (NULL for a NULL argument), as ``list<element>``."""
    rows = zip(py_values(arrays), ascending.to_pylist(), nulls_first.to_pylist())
    return pa.array([None if a is None or up is None or first is None else java_sort(a, up, first)
                     for a, up, first in rows], pa.list_(element))
