"""ARRAY_AGG, COLLECT, JSON_ARRAYAGG, JSON_OBJECTAGG and PERCENTILE: built-in aggregates that collect values.

They run on the mechanism of FIRST_VALUE and LISTAGG (:mod:`streamsql.functions.ordered_aggregates`):
an object with PyFlink's aggregate methods, whose list accumulator is folded row by row
(``accumulate`` for +I/+U, ``retract`` for -U/-D) in GROUP BY and window aggregates.

Semantics, as Flink 2.3's (flink-table-runtime ``functions/aggregate``):

- ``ARRAY_AGG([DISTINCT] x [RESPECT NULLS | IGNORE NULLS])`` (ArrayAggFunction): the values in
  arrival order, NULLs kept unless ``IGNORE NULLS``; a retraction removes the first occurrence
  of the value (``LinkedList.remove``); NULL (not an empty array) when no value is left. The
  result is ``ARRAY<type of x>``. ``DISTINCT`` (Flink's distinct view: a count per value, the
  function sees a value's first arrival and its last retraction) keeps each value once, at its
  first arrival, and drops it when its count falls to zero. Its accumulator is ``[values...]``
  (``DISTINCT``: ``[[value, count], ...]``).
- ``COLLECT([DISTINCT] x)`` (CollectAggFunction): ``MULTISET<type of x> NOT NULL``, each non-NULL value
  with its count, in the order of Flink's hash map (:class:`Collect`; strings, integers and BOOLEAN);
  ``{}`` without a value. Its accumulator is ``[peak, [[value, count], ...]]``.
- ``JSON_ARRAYAGG(x [ABSENT ON NULL | NULL ON NULL])`` (JsonArrayAggFunction): the JSON array of
  the values in arrival order (the planner hands each in as its JSON text, JSON_STRING's: a
  TIMESTAMP, DATE, ARRAY, ROW ... as JSON_ARRAY writes it, a nested JSON call as JSON), never NULL
  (``[]`` without a value); NULLs are left out (``ABSENT ON NULL``, the default) or written as
  ``null``; a retraction removes the first occurrence of the value's JSON text. Its accumulator
  is ``[JSON texts...]``. The result type is VARCHAR(2000) NOT NULL, as Flink's (not cut).
- ``JSON_OBJECTAGG([KEY] k VALUE v [NULL ON NULL | ABSENT ON NULL])`` (JsonObjectAggFunction): the
  JSON object of the key/value pairs, VARCHAR(2000) NOT NULL (``{}`` without a pair), its members
  sorted by key (Java's String order, as Flink's Jackson mapper writes them); a NULL value is
  written ``null`` (``NULL ON NULL``, the default) or left out. The planner hands the value in as
  its JSON text (JSON_STRING's, so a nested JSON_OBJECT / JSON_ARRAY is inserted as JSON). A key
  seen again while it is in the object fails the job (Flink's ``Key 'k' is already present.
  Duplicate keys are not allowed in JSON_OBJECTAGG. ...``), so does a NULL key (``Map views don't
  support null keys.``), and so does a key in two of the parts a HOP/CUMULATE window or a session
  merges (Flink's ``merge``); a retraction removes the key whatever its value. Its accumulator is
  ``{key: JSON text}``.
- ``PERCENTILE(x, p [, frequency])`` (PercentileAggFunction): the percentile ``p`` (a DOUBLE in
  [0, 1], or an ARRAY of them for an ARRAY<DOUBLE> result) of the non-NULL values as DOUBLE, by
  linear interpolation between the two values around position ``p * (n - 1) + 1`` of the sorted
  values (``n`` their total count); each row counts ``frequency`` times (NULL or not positive:
  the row is skipped); a retraction subtracts its count; NULL without a value. Its accumulator is
  ``[percentages or None, {value: count}]``.
"""

from __future__ import annotations

import json
import math
import re

from streamsql.core.errors import PlanError
from streamsql.core.java_hash import HASHED_TYPES, hash_map_order, internal_hash
from streamsql.core.types import SqlType
from streamsql.functions.ordered_aggregates import register_builtin


class ArrayAgg:
    """``ARRAY_AGG(x)``: the accumulator is the list of values in arrival order."""

    def __init__(self, ignore_nulls: bool):
        self.ignore_nulls = ignore_nulls

    def create_accumulator(self) -> list:
        """No value."""
        return []

    def accumulate(self, acc: list, value) -> None:
        """Append ``value`` (a NULL one only when NULLs are respected)."""
        if value is not None or not self.ignore_nulls:
            acc.append(value)

    def retract(self, acc: list, value) -> None:
        """Remove the first occurrence of ``value`` (none: nothing changes)."""
        if (value is not None or not self.ignore_nulls) and value in acc:
            acc.remove(value)

    def merge(self, acc: list, others: list) -> None:
        """Append the values of each of ``others`` (sessions merged, in their order)."""
        for other in others:
            acc.extend(other)

    def get_value(self, acc: list):
        """The values, or NULL when there is none."""
        return list(acc) if acc else None


class ArrayAggDistinct(ArrayAgg):
    """``ARRAY_AGG(DISTINCT x)``: the accumulator is ``[[value, count], ...]`` in first-arrival order."""

    def accumulate(self, acc: list, value) -> None:
        """Count ``value``; a new one is appended."""
        if value is None and self.ignore_nulls:
            return
        for entry in acc:
            if entry[0] == value:
                entry[1] += 1
                return
        acc.append([value, 1])

    def retract(self, acc: list, value) -> None:
        """Count ``value`` down; it leaves the array when its count reaches zero."""
        for n, entry in enumerate(acc):
            if entry[0] == value:
                entry[1] -= 1
                if entry[1] <= 0:
                    del acc[n]
                return

    def get_value(self, acc: list):
        """The distinct values, or NULL when there is none."""
        return [entry[0] for entry in acc] if acc else None


class Filtered:
    """``inner`` taking a value only where a FILTER's condition (the second argument) is true.

    As Flink's FILTER on ARRAY_AGG: the rows it excludes are not taken, while a NULL value of a row
    it keeps is (``ARRAY_AGG(k) FILTER (WHERE x > 0)``).
    """

    def __init__(self, inner: ArrayAgg):
        self.inner = inner

    def create_accumulator(self) -> list:
        """The inner accumulator."""
        return self.inner.create_accumulator()

    def accumulate(self, acc: list, value, keep) -> None:
        """The inner accumulate where ``keep`` is true."""
        if keep:
            self.inner.accumulate(acc, value)

    def retract(self, acc: list, value, keep) -> None:
        """The inner retract where ``keep`` is true."""
        if keep:
            self.inner.retract(acc, value)

    def merge(self, acc: list, others: list) -> None:
        """The inner merge."""
        self.inner.merge(acc, others)

    def get_value(self, acc: list):
        """The inner value."""
        return self.inner.get_value(acc)


class Collect:
    """``COLLECT([DISTINCT] x)``: the accumulator is ``[peak, [[value, count], ...]]``.

    As Flink's CollectAggFunction: NULLs are skipped; a value counts up, a retraction counts it
    down (a value never seen is counted -1), and it leaves at zero. ``DISTINCT``: each value counts
    once (Flink's distinct view hands the function a value's first arrival and last retraction).
    The pairs are in first-insertion order and ``peak`` is the most values held at once: together
    they give the order of Java's ``HashMap`` (:func:`hash_ordered`) in which Flink 2.3 holds the
    values and prints them.
    """

    def __init__(self, distinct: bool):
        self.distinct = distinct

    def create_accumulator(self) -> list:
        """No value."""
        return [0, []]

    def accumulate(self, acc: list, value) -> None:
        """Count ``value`` up (a NULL is skipped)."""
        self._count(acc, value, 1)

    def retract(self, acc: list, value) -> None:
        """Count ``value`` down; it leaves at zero."""
        self._count(acc, value, -1)

    def _count(self, acc: list, value, step: int) -> None:
        if value is None:
            return
        pairs = acc[1]
        for n, pair in enumerate(pairs):
            if pair[0] == value:
                pair[1] += step
                if pair[1] == 0:
                    del pairs[n]
                return
        pairs.append([value, step])
        acc[0] = max(acc[0], len(pairs))

    def merge(self, acc: list, others: list) -> None:
        """Add the counts of each of ``others`` (sessions merged, in their order)."""
        for other in others:
            for value, count in other[1]:
                self._count(acc, value, count)

    def get_value(self, acc: list):
        """The ``(value, count)`` pairs in Flink's order (a DISTINCT's counts 1); an empty multiset too."""
        pairs = [(v, 1 if self.distinct else c) for v, c in acc[1]]
        return [pairs[i] for i in hash_ordered([v for v, _ in pairs], acc[0])]


def hash_ordered(values: list, peak: int) -> list[int]:
    """The positions of ``values`` (in first-insertion order) in the order Flink 2.3's COLLECT gives them.

    Its accumulator is a state-backed ``MapView`` (a ``HashMap`` per key in the heap state backend,
    grown to hold ``peak`` values at once, never shrunk); ``getValue`` copies its entries, in that
    map's order, into a new ``HashMap`` (``StateMapView.getMap``), whose order is the one printed.
    The elements hash as Flink's internal data (``BinaryStringData``'s Murmur hash for a string).
    """
    hashes = [internal_hash(v) for v in values]
    size = 16
    while peak > size * 0.75:
        size *= 2
    held = hash_map_order(hashes, size)
    return [held[i] for i in hash_map_order([hashes[i] for i in held])]


class JsonArrayAgg:
    """``JSON_ARRAYAGG(x)``: the accumulator is the list of the values' JSON texts in arrival order.

    The planner passes each value's JSON text (``JSON_STRING(x)``, as Flink's planner wraps it).
    """

    def __init__(self, null_on_null: bool):
        self.null_on_null = null_on_null

    def create_accumulator(self) -> list:
        """No value."""
        return []

    def accumulate(self, acc: list, text) -> None:
        """Append a value's JSON ``text`` (NULL: ``null`` with NULL ON NULL, else nothing)."""
        if text is not None:
            acc.append(text)
        elif self.null_on_null:
            acc.append("null")

    def retract(self, acc: list, text) -> None:
        """Remove the first occurrence of a value's JSON ``text`` (``null`` for NULL)."""
        text = "null" if text is None else text
        if text in acc:
            acc.remove(text)

    def get_value(self, acc: list) -> str:
        """The JSON array (``[]`` without a value)."""
        return "[" + ",".join(acc) + "]"


class JsonObjectAgg:
    """``JSON_OBJECTAGG(KEY k VALUE v)``: the accumulator is ``{key: the value's JSON text}``."""

    def __init__(self, null_on_null: bool):
        self.null_on_null = null_on_null

    def create_accumulator(self) -> dict:
        """No member."""
        return {}

    def accumulate(self, acc: dict, key, text) -> None:
        """Add the member ``key`` (``text``: the value's JSON text, None for NULL).

        Raises:
            ValueError: a NULL key, or a key the object has (Flink's messages).
        """
        if key is None:
            msg = "Map views don't support null keys."
            raise ValueError(msg)
        _absent(acc, key)
        if text is not None or self.null_on_null:
            acc[key] = "null" if text is None else text

    def merge(self, acc: dict, others: list) -> None:
        """Add the members of each of ``others`` (a HOP/CUMULATE window's slices, merged sessions).

        Raises:
            ValueError: a key ``acc`` has already, as Flink's merge.
        """
        for other in others:
            for key, text in other.items():
                _absent(acc, key)
                acc[key] = text

    def retract(self, acc: dict, key, text) -> None:
        """Remove the member ``key``, whatever its value."""
        acc.pop(key, None)

    def get_value(self, acc: dict) -> str:
        """The JSON object, members sorted by key in Java's String order (``{}`` without one)."""
        keys = sorted(acc, key=lambda k: k.encode("utf-16-be", "surrogatepass"))
        return "{" + ",".join(json_text(k) + ":" + acc[k] for k in keys) + "}"


def _absent(acc: dict, key: str) -> None:
    """Fail on a key the object has, in Flink's words (JsonObjectAggFunction.assertKeyNotPresent)."""
    if key in acc:
        msg = (f"Key '{key}' is already present. Duplicate keys are not allowed in JSON_OBJECTAGG. "
               "Please ensure that keys are unique.")
        raise ValueError(msg)


_UNICODE_ESCAPE = re.compile(r"\\u([0-9a-f]{4})")


def json_text(value) -> str:
    """A STRING, integer or BOOLEAN value as JSON text, as Flink's JSON_STRING (Jackson) writes it."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    # Jackson escapes the control characters as Python does, with upper-case hex digits
    return _UNICODE_ESCAPE.sub(lambda m: "\\u" + m.group(1).upper(), json.dumps(value, ensure_ascii=False))


class Percentile:
    """``PERCENTILE(x, p [, frequency])``: the accumulator is ``[percentages, {value: count}]``."""

    def __init__(self, many: bool):
        self.many = many  # an ARRAY of percentages: an ARRAY result

    def create_accumulator(self) -> list:
        """No percentage seen, no value."""
        return [None, {}]

    def accumulate(self, acc: list, value, percentage, frequency=1) -> None:
        """Count ``value`` ``frequency`` times; the first row's percentage is kept."""
        if acc[0] is None:
            acc[0] = [float(p) for p in percentage] if self.many else [float(percentage)]
        if value is not None and frequency is not None and frequency > 0:
            self._add(acc, float(value), int(frequency))

    def retract(self, acc: list, value, percentage, frequency=1) -> None:
        """Count ``value`` down ``frequency`` times."""
        if value is not None and frequency is not None and frequency > 0:
            self._add(acc, float(value), -int(frequency))

    @staticmethod
    def _add(acc: list, value: float, n: int) -> None:
        total = acc[1].get(value, 0) + n
        if total:
            acc[1][value] = total
        else:
            acc[1].pop(value, None)

    def merge(self, acc: list, others: list) -> None:
        """Add the counts of ``others`` (sessions merged)."""
        for percentages, counts in others:
            if acc[0] is None:
                acc[0] = percentages
            for v, n in counts.items():
                self._add(acc, v, n)

    def get_value(self, acc: list):
        """The percentile(s), NULL without a value (as Flink's PercentileAccumulator.getValue)."""
        percentages, counts = acc
        total = sum(counts.values())
        if percentages is None or total <= 0:
            return None
        values = sorted(counts.items())
        out = []
        for p in percentages:
            position = p * (total - 1) + 1
            lower, higher = math.floor(position), math.ceil(position)
            j, seen = 0, values[0][1]
            while seen < lower:
                j += 1
                seen += values[j][1]
            v = values[j][0]
            if seen >= higher:  # between two equal values, or at an exact position
                out.append(v)
            else:  # linear interpolation with the next value
                out.append((higher - position) * v + (position - lower) * values[j + 1][0])
        return out if self.many else out[0]


def _array_of(arg: SqlType | None) -> SqlType:
    """ARRAY_AGG: ``ARRAY<type of the argument>``."""
    return SqlType.array(arg)


#: JSON_ARRAYAGG's and JSON_OBJECTAGG's result type in Flink 2.3 (values are not cut to it).
_JSON_AGG_TYPE = SqlType("STRING", precision=2000, nullable=False)


def _multiset_of(arg: SqlType | None) -> SqlType:
    """COLLECT: ``MULTISET<type of the argument> NOT NULL`` (as Flink 2.3; an element's nullability kept).

    Raises:
        PlanError: an element type whose Java hash (the order Flink prints the elements in) is not
            reproduced here: other than a string, an integer or a BOOLEAN.
    """
    if arg is None or arg.name not in HASHED_TYPES:
        msg = (f"COLLECT of {arg or 'this value'} is not supported yet: Flink orders a MULTISET's elements "
               "by their Java hash, reproduced here for strings, integers and BOOLEAN")
        raise PlanError(msg)
    return SqlType.multiset(arg, nullable=False)


def _json_string(arg: SqlType | None) -> SqlType:
    """JSON_ARRAYAGG (of a value's JSON text): VARCHAR(2000) NOT NULL."""
    return _JSON_AGG_TYPE


def _json_object_of(key: SqlType | None) -> SqlType:
    """JSON_OBJECTAGG: VARCHAR(2000) NOT NULL.

    Raises:
        PlanError: a key that is not a character string (Calcite's words).
    """
    if key is not None and key.name not in ("STRING", "NULL"):
        msg = (f"Cannot apply 'JSON_OBJECTAGG' to arguments of type 'JSON_OBJECTAGG(<{key}>, <ANY>)'. "
               "Supported form(s): 'JSON_OBJECTAGG(<CHARACTER>, <ANY>)'")
        raise PlanError(msg)
    return _JSON_AGG_TYPE


def _percentile_of(arg: SqlType | None) -> SqlType:
    """PERCENTILE with one percentage: DOUBLE.

    Raises:
        PlanError: an argument that is not numeric.
    """
    if arg is None or not arg.is_numeric:
        msg = f"PERCENTILE needs a numeric argument, got {arg}"
        raise PlanError(msg)
    return SqlType("DOUBLE")


def _percentiles_of(arg: SqlType | None) -> SqlType:
    """PERCENTILE with an ARRAY of percentages: ARRAY<DOUBLE>."""
    return SqlType.array(_percentile_of(arg))


COLLECTION_FUNCTIONS = (
    register_builtin("array_agg", "ARRAY_AGG", ArrayAgg(ignore_nulls=False), 1, _array_of),
    register_builtin("array_agg_ignore_nulls", "ARRAY_AGG", ArrayAgg(ignore_nulls=True), 1, _array_of),
    register_builtin("array_agg_distinct", "ARRAY_AGG", ArrayAggDistinct(ignore_nulls=False), 1, _array_of),
    register_builtin("array_agg_distinct_ignore_nulls", "ARRAY_AGG", ArrayAggDistinct(ignore_nulls=True), 1,
                     _array_of),
    register_builtin("array_agg_filtered", "ARRAY_AGG", Filtered(ArrayAgg(ignore_nulls=False)), 2,
                     _array_of),
    register_builtin("array_agg_distinct_filtered", "ARRAY_AGG",
                     Filtered(ArrayAggDistinct(ignore_nulls=False)), 2, _array_of),
    register_builtin("collect", "COLLECT", Collect(distinct=False), 1, _multiset_of),
    register_builtin("collect_distinct", "COLLECT", Collect(distinct=True), 1, _multiset_of),
    register_builtin("json_arrayagg", "JSON_ARRAYAGG", JsonArrayAgg(null_on_null=False), 1, _json_string),
    register_builtin("json_arrayagg_null_on_null", "JSON_ARRAYAGG", JsonArrayAgg(null_on_null=True), 1,
                     _json_string),
    register_builtin("json_objectagg", "JSON_OBJECTAGG", JsonObjectAgg(null_on_null=True), 2,
                     _json_object_of),
    register_builtin("json_objectagg_absent_on_null", "JSON_OBJECTAGG", JsonObjectAgg(null_on_null=False), 2,
                     _json_object_of),
    register_builtin("percentile", "PERCENTILE", Percentile(many=False), 2, _percentile_of),
    register_builtin("percentile_frequency", "PERCENTILE", Percentile(many=False), 3, _percentile_of),
    register_builtin("percentile_array", "PERCENTILE", Percentile(many=True), 2, _percentiles_of),
    register_builtin("percentile_array_frequency", "PERCENTILE", Percentile(many=True), 3, _percentiles_of),
)
"""The aggregate classes, by their ``AggSpec.func``."""
