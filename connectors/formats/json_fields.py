"""A JSON object with a repeated field name, and which of its fields Flink's ``json`` format reads.

Flink 2.3's ``json`` format reads a message with a streaming parser
(``JsonParserToRowDataConverters.createRowConverter``): it walks the object's fields in order,
sets each one the row has a column for (a later one with the same name overwrites the earlier
value) and counts it, and once it has counted as many fields as the row has columns it skips the
rest of the object unread. A repeated name is thus counted twice, and a column whose field comes
after the count is full is NULL: with columns ``(id, a, b)``, ``{"id":1,"a":1,"a":2,"b":3}`` is
``(1, 2, NULL)`` and ``{"id":2,"b":3,"a":1,"a":2}`` is ``(2, 1, 3)``. ``'json.fail-on-missing-field'``
checks the count, not the names, so ``{"id":0,"a":1,"a":2}`` passes it. A nested ROW is read the
same way. An object read whole (into a STRING or a MAP) keeps the last value of a name at the
place of its first, as Jackson's tree (``ObjectNode``) and a Python dict do (compat cases
``kafka_json_repeated_*``, recorded from Flink 2.3).

``debezium-json`` reads a Jackson tree, where the last value wins: it never builds a
:class:`Repeated`.
"""

from __future__ import annotations

from typing import Any


class Repeated(dict):
    """A parsed JSON object holding a field name more than once.

    As a dict it holds the last value of each name (Jackson's tree); :attr:`pairs` holds every
    ``(name, value)`` in the order written, for :func:`streamed_fields`.
    """

    __slots__ = ("pairs",)

    def __init__(self, pairs: list[tuple[str, Any]]):
        super().__init__(pairs)
        self.pairs = pairs


def object_from_pairs(pairs: list[tuple[str, Any]]) -> dict:
    """``object_pairs_hook`` for the stdlib parser: a dict, or a :class:`Repeated` when a name repeats."""
    d = dict(pairs)
    return d if len(d) == len(pairs) else Repeated(pairs)


def streamed_fields(obj: Repeated, index: dict[str, int]) -> list[tuple[int, str, Any]]:
    """The ``(column, name, value)`` settings Flink's row converter makes from ``obj``, in order.

    Args:
        obj: the object.
        index: the row's column of each field name; its size is the row's arity.

    Their count is what ``'json.fail-on-missing-field'`` compares with the arity.

    >>> streamed_fields(object_from_pairs([("a", 1), ("a", 2), ("b", 3)]), {"a": 0, "b": 1})
    [(0, 'a', 1), (0, 'a', 2)]
    """
    out: list[tuple[int, str, Any]] = []
    for name, value in obj.pairs:
        if len(out) >= len(index):
            break  # the count is full: the rest of the object is never read
        i = index.get(name)
        if i is not None:
            out.append((i, name, value))
    return out


def key_count(v: Any) -> int:
    """How many field names the objects in ``v`` hold, at every depth (a repeated name once)."""
    if isinstance(v, dict):
        return len(v) + sum(key_count(x) for x in v.values() if isinstance(x, (dict, list)))
    if isinstance(v, list):
        return sum(key_count(x) for x in v if isinstance(x, (dict, list)))
    return 0


def may_repeat(text: bytes, obj: Any) -> bool:
    """False when ``obj`` (parsed from ``text``, repeated names collapsed) can hold no repeated name.

    Every field name is followed by a ``:``, so a text with no more ``:`` than ``obj`` has names
    wrote each name once; only otherwise (a repeated name, or a ``:`` inside a string such as a
    timestamp's) is it parsed again keeping every field.
    """
    return text.count(b":") != key_count(obj)
