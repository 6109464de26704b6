"""Flink 2.3's JSON_VALUE / JSON_QUERY evaluation, row by row: its ``SqlJsonUtils`` over Jayway JsonPath.

Flink reads the document with Jackson (``USE_BIG_DECIMAL_FOR_FLOATS``: a number with a fraction or
an exponent is a ``BigDecimal`` that keeps its text, ``1.50``; an integer is an ``Integer``, a
``Long`` or a ``BigInteger`` by its size; the first JSON value of the text is read, what follows
it is ignored; past Jackson's limits, a number of more than 1,000 digits or nesting deeper than
1,000 levels, it is not JSON), splits the path's mode off (``lax`` / ``strict``; a path without one is
**strict**), and evaluates the path with Jayway (lax: ``SUPPRESS_EXCEPTIONS``):

- lax: a step that finds nothing (a missing member, an index out of range, a member of a
  non-object) gives no value: the ON EMPTY behaviour; so does a document that is not JSON;
- strict: each of those is an error (Jayway's ``PathNotFoundException``): the ON ERROR behaviour,
  as is a document that is not JSON;
- a JSON ``null`` found is empty in a lax path, an error in a strict one (Flink 2.3's answers:
  ``'strict $.a' DEFAULT 'e' ON EMPTY DEFAULT 'r' ON ERROR`` of ``{"a":null}`` is ``r``); a
  document that is JSON ``null`` is an error in either mode (Jayway refuses a null root).

Only member and index steps are evaluated (``$``, ``.name``, ``['name']``, ``[n]``, ``[-n]``);
:func:`path_steps` tells the others apart so the planner refuses them.

:func:`jsonize` writes a value as Flink's Jackson does (keys sorted, compact, numbers as parsed).
"""

from __future__ import annotations

import json
import re
import sys
from decimal import Decimal
from functools import lru_cache

_STEP = re.compile(r"\s*(?:\.\s*([A-Za-z_][A-Za-z0-9_]*)|\[\s*'((?:[^'\\]|\\.)*)'\s*\]|\[\s*(-?\d+)\s*\])")
_MODE = re.compile(r"^\s*(strict|lax)\s+(.+)$", re.IGNORECASE | re.DOTALL)


class JsonError(Exception):
    """What Flink's JSON functions take for an error (ON ERROR applies); the message is Flink's."""


class Unsupported(ValueError):
    """A path with steps other than members and indexes (refused at planning)."""


@lru_cache(maxsize=1024)  # a call's path is a literal: parsed once, not per row
def path_steps(spec: str) -> tuple[str, tuple[tuple[str, str | int], ...]]:
    """(mode ``LAX`` / ``STRICT``, steps ``("member", name)`` / ``("index", n)``) of a Flink path.

    Raises:
        Unsupported: a step other than a member or an index (a wildcard, a filter, a function).
    """
    m = _MODE.match(spec)
    # SqlJsonUtils: a path without a mode is strict
    mode, text = (m.group(1).upper(), m.group(2)) if m else ("STRICT", spec)
    text = text.strip()
    if not text.startswith("$"):
        raise Unsupported(spec)
    steps: list[tuple[str, str | int]] = []
    pos = 1
    while pos < len(text):
        s = _STEP.match(text, pos)
        if s is None:
            raise Unsupported(spec)
        name, quoted, index = s.groups()
        if index is not None:
            steps.append(("index", int(index)))
        else:
            steps.append(("member", name if name is not None else re.sub(r"\\(.)", r"\1", quoted)))
        pos = s.end()
    return mode, tuple(steps)


def _no_constant(name: str):
    msg = f"Non-standard token '{name}'"
    raise JsonError(msg)


#: Jackson's ``StreamReadConstraints`` defaults (2.15+, Flink 2.3's): a document nested deeper, or a
#: number with more digits, is an error (PyFlink 2.3: 1,000 digits and 1,000 levels are read, one
#: more is not; tests/functions/difffuzz_regressions.txt).
MAX_DEPTH, MAX_DIGITS = 1000, 1000


def _digits(text: str) -> int:
    if len(text) > MAX_DIGITS:  # else within the limit whatever it counts
        # the digits of the integer part (none for a lone 0: Flink reads 0. and 1,000 more), the
        # fraction and the exponent, as Jackson counts them
        mantissa, _, exponent = text.lstrip("-").replace("E", "e").partition("e")
        whole, _, fraction = mantissa.partition(".")
        digits = (0 if whole == "0" else len(whole)) + len(fraction) + len(exponent.lstrip("+-"))
        if digits > MAX_DIGITS:
            msg = f"Number value length ({digits}) exceeds the maximum allowed ({MAX_DIGITS})"
            raise JsonError(msg)
    return text


_DECODER = json.JSONDecoder(parse_float=lambda t: Decimal(_digits(t)), parse_int=lambda t: int(_digits(t)),
                            parse_constant=_no_constant, strict=True)  # (Python's own int limit: 4,300)
_NESTING = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]')


def _depth(text: str, start: int) -> int:
    """The deepest nesting of arrays and objects in the JSON value at ``start`` (up to its end)."""
    depth = deepest = 0
    for m in _NESTING.finditer(text, start):
        c = m.group()
        if c in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif c in "]}":
            depth -= 1
            if depth <= 0:
                break
    return deepest


def _decode(text: str, start: int):
    """``raw_decode`` with Jackson's nesting limit: Python's own recursion limit is not it."""
    try:
        return _DECODER.raw_decode(text, start)
    except RecursionError:
        pass
    depth = _depth(text, start)
    if depth > MAX_DEPTH:
        msg = f"Document nesting depth ({depth}) exceeds the maximum allowed ({MAX_DEPTH})"
        raise JsonError(msg) from None
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(limit + 2 * MAX_DEPTH)  # the scanner recurses once per level
    try:
        return _DECODER.raw_decode(text, start)
    finally:
        sys.setrecursionlimit(limit)


def parse_document(text: str):
    """The first JSON value of ``text``, as Jackson reads it (what follows it is not read).

    Raises:
        JsonError: text that does not start with a JSON value.
    """
    start = len(text) - len(text.lstrip(" \t\r\n"))
    if start == len(text):
        msg = "No content to map due to end-of-input"
        raise JsonError(msg)
    try:
        value, end = _decode(text, start)
    except json.JSONDecodeError as e:
        msg = f"Unexpected character: {e.msg}"
        raise JsonError(msg) from None
    if isinstance(value, int) and not isinstance(value, bool) and end < len(text) and text[end].isdigit():
        msg = "Invalid numeric value: Leading zeroes not allowed"  # "01": Python reads 0
        raise JsonError(msg)
    return value


_NOT_FOUND = object()


def evaluate(doc: str, spec: str):
    """The value Flink's path ``spec`` finds in document ``doc``: (found value or None, error or None).

    None with no error is "empty" (nothing found, or JSON null); an error is a :class:`JsonError`.
    Raises :class:`Unsupported` for a path :func:`path_steps` refuses.
    """
    mode, steps = path_steps(spec)
    try:
        value = parse_document(doc)
    except JsonError as e:
        return (None, None) if mode == "LAX" else (None, e)
    if value is None:
        return None, JsonError("json can not be null")
    where = "$"
    for n, (kind, key) in enumerate(steps):
        leaf = n == len(steps) - 1
        here = f"{where}['{key}']" if kind == "member" else f"{where}[{key}]"
        if kind == "member":
            if not isinstance(value, dict):
                found = "null" if value is None else java_class(value)
                msg = (f"Expected to find an object with property ['{key}'] in path {where} but found "
                       f"'{found}'. This is not a json object according to the JsonProvider: "
                       "'com.jayway.jsonpath.spi.json.JacksonJsonProvider'.")
                return _missing(mode, msg)
            value = value.get(key, _NOT_FOUND)
        else:
            if not isinstance(value, list):
                msg = f"The path {where} is null" if value is None else \
                    f"Filter: [{key}] can only be applied to arrays. Current context is: {java_text(value)}"
                return _missing(mode, msg)
            i = key + len(value) if key < 0 else key
            value = value[i] if 0 <= i < len(value) else _NOT_FOUND
        if value is _NOT_FOUND:
            return _missing(mode, f"No results for path: {here}" if leaf or kind == "index"
                            else f"Missing property in path {here}")
        where = here
    if value is None and mode == "STRICT":  # Flink 2.3: a JSON null found by a strict path is an error
        return None, JsonError("Strict jsonpath mode requires a non empty returned value, but is null")
    return value, None


def _missing(mode: str, message: str):
    return (None, None) if mode == "LAX" else (None, JsonError(message))


def java_class(value) -> str:
    """The Java class Flink's Jackson reads a scalar as."""
    return {bool: "java.lang.Boolean", str: "java.lang.String", list: "java.util.ArrayList",
            Decimal: "java.math.BigDecimal"}.get(type(value)) or java_number_class(value)


def java_number_class(value: int) -> str:
    """Jackson's class for an integer: Integer, Long or BigInteger by its size."""
    if -2**31 <= value < 2**31:
        return "java.lang.Integer"
    return "java.lang.Long" if -2**63 <= value < 2**63 else "java.math.BigInteger"


def is_scalar(value) -> bool:
    """Not an object or an array (SqlJsonUtils' ``isScalarObject``)."""
    return not isinstance(value, (dict, list))


def decimal_text(d: Decimal) -> str:
    """Java's ``BigDecimal.toString``: Python's scientific-string rule is Java's; Java has no -0."""
    return str(d.copy_abs() if d.is_zero() else d)


def _scalar_text(value) -> str:
    """A scalar's text in Java and in Jackson's JSON alike (strings aside)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    return decimal_text(value) if isinstance(value, Decimal) else str(value)


def java_text(value) -> str:
    """Java's ``String.valueOf`` of a parsed value (a map ``{a=1, b=[x, y]}``, a list ``[1, 2]``)."""
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}={java_text(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(java_text(v) for v in value) + "]"
    return value if isinstance(value, str) else _scalar_text(value)


_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r"}
_NEEDS_ESCAPE = re.compile(r'["\\\x00-\x1f]')


def _string(s: str) -> str:
    return '"' + _NEEDS_ESCAPE.sub(lambda m: _ESCAPES.get(m.group(), f"\\u{ord(m.group()):04X}"), s) + '"'


def _utf16_key(s: str) -> bytes:
    return s.encode("utf-16-be", "surrogatepass")  # Java's String order: UTF-16 code units


def jsonize(value) -> str:
    """The compact JSON text Flink's Jackson writes (map entries sorted by key, in Java's order)."""
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, list):
        return "[" + ",".join(jsonize(v) for v in value) + "]"
    if isinstance(value, dict):
        items = sorted(value.items(), key=lambda kv: _utf16_key(kv[0]))
        return "{" + ",".join(f"{_string(k)}:{jsonize(v)}" for k, v in items) + "}"
    return _scalar_text(value)
