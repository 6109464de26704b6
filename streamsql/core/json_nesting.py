"""Jackson's nesting limit, for every JSON decoder of the engine (formats, JSON functions, VARIANT).

Flink 2.3 reads JSON with Jackson 2, whose ``StreamReadConstraints`` refuse a document nested
deeper than ``getMaxNestingDepth()`` = 1000 (the document's own object or array is depth 1): the
token that opens level 1001 throws ``StreamConstraintsException: Document nesting depth (1001)
exceeds the maximum allowed (1000 ...)``, whatever the depth the document goes on to. Python's
parsers have no such limit but their recursion limit (1000 frames, not Jackson's), so each decoder
here checks :func:`exceeds` and decodes a document Flink reads inside :func:`recursion_room`.
Recorded from Flink 2.3: ``scripts/flink_json_nesting.py``, ``scripts/flink_debezium_nesting.py``,
the compat cases ``kafka_json_deep_nesting_*`` and ``tests/functions/difffuzz_regressions.txt``.

Used by ``connectors/formats/json_depth.py`` (the ``json`` and ``debezium-json`` formats) and
:mod:`streamsql.functions.scalars.json_path` (JSON_VALUE / JSON_QUERY, PARSE_JSON's VARIANT).
"""

from __future__ import annotations

import contextlib
import re
import sys
from collections.abc import Iterator

#: Jackson's ``StreamReadConstraints.DEFAULT_MAX_DEPTH`` (Flink 2.3's shaded Jackson 2).
MAX_DEPTH = 1000

#: Jackson's reason for a document nested deeper than :data:`MAX_DEPTH`: it stops at the first
#: level past the limit, so the depth it names is always ``MAX_DEPTH + 1``.
TOO_DEEP = f"Document nesting depth ({MAX_DEPTH + 1}) exceeds the maximum allowed ({MAX_DEPTH})"

# A string (escapes kept inside it; an unterminated one to the end) or one structural character.
_LEXEME = re.compile(rb'"(?:[^"\\]|\\.)*"?|[\[\]{}]', re.DOTALL)
_LEXEME_TEXT = re.compile(_LEXEME.pattern.decode(), re.DOTALL)


def opens(text: str | bytes, start: int = 0) -> int:
    """How many ``[`` and ``{`` ``text`` holds from ``start`` (inside strings too): a cheap bound.

    A document nested deeper than :data:`MAX_DEPTH` opens more than that many.
    """
    if isinstance(text, bytes):
        return text.count(b"[", start) + text.count(b"{", start)
    return text.count("[", start) + text.count("{", start)


def nesting_depth(text: str | bytes, start: int = 0) -> int:
    """The deepest nesting of the first JSON value of ``text`` from ``start`` (its own object or array: 1).

    Brackets inside strings do not count; the scan ends with the first value. Iterative: any depth.
    """
    depth = deepest = 0
    lexeme = _LEXEME if isinstance(text, bytes) else _LEXEME_TEXT
    for m in lexeme.finditer(text, start):
        c = m.group()[:1]
        if c in ("[", "{", b"[", b"{"):
            depth += 1
            deepest = max(deepest, depth)
        elif c in ("]", "}", b"]", b"}"):
            depth -= 1
            if depth <= 0:
                break
    return deepest


def exceeds(text: str | bytes, start: int = 0) -> bool:
    """True when the JSON value of ``text`` at ``start`` is nested deeper than Jackson takes.

    Counts brackets first (:func:`opens`); scans the nesting only when there are enough of them.
    """
    return opens(text, start) > MAX_DEPTH and nesting_depth(text, start) > MAX_DEPTH


@contextlib.contextmanager
def recursion_room(frames_per_level: int) -> Iterator[None]:
    """Python's recursion limit raised by ``frames_per_level`` frames for each of Jackson's levels.

    For decoding (or walking) a value nested up to :data:`MAX_DEPTH` deep with recursive Python code
    (the stdlib's scanner: one frame a level; converters and writers: two to four): a value Flink
    reads must not fail for Python's limit. The limit is restored on leaving.
    """
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(limit + frames_per_level * MAX_DEPTH)
    try:
        yield
    finally:
        sys.setrecursionlimit(limit)
