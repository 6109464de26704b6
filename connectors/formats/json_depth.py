"""Jackson's nesting limit for the JSON formats: a record nested deeper than 1000 is a bad record.

The limit and its checks are :mod:`streamsql.core.json_nesting`'s (shared with the JSON functions).
Every token of a record is read, also those of a field no column reads (Jackson's
``skipToNextField`` walks them), so the record is bad whether or not the query reads the deep
field; with ``'json.ignore-parse-errors'`` it is dropped, except where a column's converter itself
walks into the deep value: that column is NULL and the row converter goes on from where the parser
stands (:mod:`.json_stream`). Recorded from Flink 2.3: compat cases ``kafka_json_deep_nesting_*``
and ``scripts/flink_json_nesting.py`` (filesystem source).

Arrow's and msgspec's readers take deeper documents (or fail with Python's own recursion limit,
which is not Jackson's), so the fast paths leave a batch holding such a record to the per-record
path (:func:`too_deep`), which decides as Flink.
"""

from __future__ import annotations

import contextlib
import json as _json
import re
from collections.abc import Iterator
from typing import Any

from streamsql.connectors.formats.convert import JsonNumber, RecordError, json_int

from streamsql.core.json_nesting import MAX_DEPTH, TOO_DEEP, exceeds, opens, recursion_room

# The tokens of the tokenizer: strings, structure, ':' and ',', and any other scalar text.
_TOKEN = re.compile(rb'\s*(?:("(?:[^"\\]|\\.)*")|([\[\]{}:,])|([^\s\[\]{}:,"]+))', re.DOTALL)


class TooDeep(RecordError):
    """A record nested deeper than :data:`~streamsql.core.json_nesting.MAX_DEPTH`; Jackson's reason."""

    def __init__(self):
        super().__init__(TOO_DEEP)


def too_deep(data: bytes, payloads: list[bytes]) -> bool:
    """True when a payload is nested deeper than :data:`MAX_DEPTH` (a fast path then declines).

    ``data`` is the payloads joined by one separator byte each. Valid JSON deeper than the limit
    holds at least ``MAX_DEPTH + 1`` opening and as many closing brackets, so a batch whose
    payloads are all shorter than that has none (the lengths: ~0.02 µs a record; counting the
    brackets of every batch cost ~0.25). Invalid JSON fails the fast paths anyway. Only a batch
    with a longer payload counts brackets: fewer than ``len(payloads) + MAX_DEPTH`` (every record
    of a fast batch, an object, opens one) is none, else its long payloads are scanned.
    """
    if max(map(len, payloads), default=0) <= 2 * MAX_DEPTH + 1 or opens(data) < len(payloads) + MAX_DEPTH:
        return False
    return any(exceeds(p) for p in payloads)


def check_depth(v: bytes) -> None:
    """Raise :class:`TooDeep` for a record Jackson refuses (a cheap count first)."""
    if exceeds(v):
        raise TooDeep


@contextlib.contextmanager
def deep_recursion(v: bytes) -> Iterator[None]:
    """Python's recursion limit raised while a record nested up to :data:`MAX_DEPTH` is decoded.

    The stdlib's parser and the converters recurse once or twice per level, and Python's default
    limit (1000 frames) is not Jackson's: a record Flink reads (depth 1000) must not fail for it.
    Only for a record with many brackets (:func:`~streamsql.core.json_nesting.recursion_room`).
    """
    if opens(v) <= MAX_DEPTH // 4:
        yield
        return
    with recursion_room(4):
        yield


def _scalar(text: bytes) -> Any:
    try:
        return _json.loads(text, parse_float=JsonNumber, parse_int=json_int, parse_constant=_constant)
    except ValueError:
        msg = f"invalid JSON near {text[:20]!r}"
        raise RecordError(msg) from None


def _constant(name: str):
    msg = f"invalid JSON number {name}"
    raise ValueError(msg)


def deep_tokens(v: bytes) -> list[tuple[str, Any]]:
    """The tokens of the first JSON value of ``v`` as :func:`.json_stream.tokens` gives them, iteratively.

    For a record too deep to parse into Python values: ``(kind, value)`` with kind ``{ } [ ]``,
    ``"F"`` (a field name) or ``"V"`` (a scalar); the walk of :mod:`.json_stream` raises
    :class:`TooDeep` where Jackson's parser would. A syntax error before the value ends raises
    :class:`RecordError` (Jackson's parser fails there too, but no later than the depth error it
    meets first; such records are dropped or bad either way).
    """
    out: list[tuple[str, Any]] = []
    stack: list[str] = []
    expect_key = False
    pos = 0
    while True:
        m = _TOKEN.match(v, pos)
        if m is None or m.end() == pos:
            msg = "invalid JSON (unexpected end or character)"
            raise RecordError(msg)
        pos = m.end()
        text, punct, other = m.groups()
        if punct in (b"{", b"["):
            out.append((punct.decode(), None))
            stack.append(punct.decode())
            expect_key = punct == b"{"
        elif punct in (b"}", b"]"):
            out.append((punct.decode(), None))
            stack.pop()
            expect_key = False
        elif punct == b",":
            expect_key = bool(stack) and stack[-1] == "{"
            continue
        elif punct == b":":
            continue
        else:
            value = _scalar(text if text is not None else other)
            out.append(("F", value) if expect_key else ("V", value))
            expect_key = False
        if not stack:
            return out
