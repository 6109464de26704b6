"""Arrow values as Python objects, TIMESTAMP(7..9) included, the same with or without pandas.

pyarrow converts a ``timestamp('ns')`` value (a TIMESTAMP(7..9) or TIMESTAMP_LTZ(7..9), see
:mod:`streamsql.core.types`) to a ``pandas.Timestamp`` when pandas can be imported and fails
("Nanosecond resolution temporal type ... not safely convertible") when it cannot; a
``datetime`` holds microseconds only. Operators that hold values as Python objects (COUNT(DISTINCT),
a retracting MIN/MAX, ARRAY_AGG, Top-N, OVER windows, joins' and MATCH_RECOGNIZE's state) take
them from :func:`py_values`, which gives such a value as its **epoch nanoseconds** (an ``int``,
whatever the time zone of an instant): it is hashable, orders and compares as the timestamp does
(two values one nanosecond apart are distinct, as in Flink, whose ``TimestampData`` keeps the
nanoseconds), packs into state as an integer, and Arrow builds it back into the column's own type
(``pa.array(values, type)``). Every other value is ``to_pylist``'s.

Python functions receive what PyFlink hands them (:func:`user_values`): a ``datetime`` cut down to
its microsecond (PyFlink's ``TimestampCoderImpl`` decodes ``milliseconds`` and ``nanoseconds`` to a
``datetime`` with ``microsecond = nanoseconds // 1000``).
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

_EPOCH = dt.datetime(1970, 1, 1)  # noqa: DTZ001 - a wall clock's epoch (TIMESTAMP has no zone)


def nanos_as_int(t: pa.DataType) -> pa.DataType | None:
    """``t`` with every ``timestamp('ns')`` in it (nested too) as ``int64``; None when it holds none."""
    if pa.types.is_timestamp(t):
        return pa.int64() if t.unit == "ns" else None
    if pa.types.is_map(t):
        k, v = nanos_as_int(t.key_type), nanos_as_int(t.item_type)
        return None if k is None and v is None else pa.map_(k or t.key_type, v or t.item_type)
    if pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t):
        inner = nanos_as_int(t.value_type)
        if inner is None:
            return None
        field = t.value_field.with_type(inner)
        if pa.types.is_fixed_size_list(t):
            return pa.list_(field, t.list_size)
        return pa.large_list(field) if pa.types.is_large_list(t) else pa.list_(field)
    if pa.types.is_struct(t):
        fields = [t.field(i) for i in range(t.num_fields)]
        inner = [nanos_as_int(f.type) for f in fields]
        if all(i is None for i in inner):
            return None
        return pa.struct([f.with_type(i or f.type) for f, i in zip(fields, inner)])
    return None


def py_values(col: pa.Array | pa.ChunkedArray) -> list:
    """``col.to_pylist()``, with each TIMESTAMP(7..9) value (nested too) as its epoch nanoseconds (int)."""
    as_int = nanos_as_int(col.type)
    return (col if as_int is None else col.cast(as_int)).to_pylist()


def py_value(scalar: pa.Scalar) -> Any:
    """One value as :func:`py_values` gives it."""
    return py_values(pa.array([scalar], scalar.type))[0]


def user_values(col: pa.Array | pa.ChunkedArray) -> list:
    """The Python values a Python function receives: ``to_pylist``'s, a TIMESTAMP(7..9) as PyFlink's.

    A nanosecond timestamp is a ``datetime`` cut down to its microsecond (see the module docstring);
    an instant (TIMESTAMP_LTZ) carries the column's zone, as ``to_pylist`` gives one of microseconds.
    """
    t = col.type
    if nanos_as_int(t) is None:
        return col.to_pylist()
    if pa.types.is_timestamp(t):
        return pc.floor_temporal(col, unit="microsecond").cast(pa.timestamp("us", t.tz)).to_pylist()
    return [_as_datetimes(v, t) for v in py_values(col)]


def _as_datetimes(v: Any, t: pa.DataType) -> Any:
    """A :func:`py_values` value of type ``t`` with its nanosecond timestamps as ``datetime`` (cut down)."""
    if v is None:
        return None
    if pa.types.is_timestamp(t):
        if t.unit != "ns":
            return v
        wall = _EPOCH + dt.timedelta(microseconds=v // 1000)
        return wall.replace(tzinfo=dt.timezone.utc) if t.tz is not None else wall
    if pa.types.is_map(t):
        return [(_as_datetimes(k, t.key_type), _as_datetimes(x, t.item_type)) for k, x in v]
    if pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t):
        return [_as_datetimes(x, t.value_type) for x in v]
    if pa.types.is_struct(t):
        return {f.name: _as_datetimes(v[f.name], f.type) for f in (t.field(i) for i in range(t.num_fields))}
    return v


def below_micros(col: pa.Array | pa.ChunkedArray) -> int:
    """How many values of a TIMESTAMP(7..9) column (``timestamp('ns')``) have digits below the microsecond.

    0 for a column of any other type (nested ones included: not looked into).
    """
    if not (pa.types.is_timestamp(col.type) and col.type.unit == "ns"):
        return 0
    nanos = col.cast(pa.int64()).fill_null(0).to_numpy()
    return int((nanos % 1000 != 0).sum())
