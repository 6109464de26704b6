"""A VARIANT value's two texts: the one it is carried as, which keeps a number's kind, and Flink's.

Flink 2.3's variant (a binary form) keeps the kind of each number it holds: an integer (a ``long``),
a DECIMAL of a scale (``1.0`` and ``1.00`` are two values) or a DOUBLE. Two VARIANTs are equal, one
GROUP BY / DISTINCT / PARTITION BY key, only when their kinds agree too (``1``, ``1.0``, ``1.00`` and
``1e0`` are four values; recorded by ``scripts/flink_variant.py``, cases ``equal_kinds``,
``group_by``, ``kinds_*``). But Flink prints them (``BinaryVariant.toString``: the print sink, a
query's rows, JSON_STRING, JSON_VALUE / JSON_QUERY of a VARIANT) alike where the text does not
tell: a DECIMAL as ``stripTrailingZeros().toPlainString()`` (``1.0`` is ``1``, ``2.50`` is ``2.5``),
a DOUBLE by Java's ``Double.toString`` (``1.0``, ``1.0E10``, ``Infinity``).

So a VARIANT is carried as a JSON text in Flink's form (members sorted by key, compact, strings as
Jackson escapes them) whose numbers are written so that each kind and value has one spelling:

- an integer: its digits (``1``, ``-5``, ``0`` for ``-0``);
- a DECIMAL: its unscaled digits with its scale (``1.0``, ``1.00``, ``2.50``, ``0.0`` for ``-0.0``:
  a ``BigDecimal`` has no negative zero); one of scale 0 (an integer beyond a ``long``) as its
  digits, which no integer kind has;
- a DOUBLE: Java's ``Double.toString``, with ``E0`` after it when it has no exponent (``1.0E0``,
  ``100.0E0``, ``-0.0E0``, ``1.0E10``, ``Infinity``), so that no DECIMAL is spelled alike.

A value read from (or accessed in) a document that has object keys also carries that document's key
dictionary, as Flink's variant carries its metadata: after :data:`DICTIONARY` (a control character
no carried JSON text holds raw), the document's keys in the order first named, as a JSON array
(``{"a":1,"b":2}`` and ``{"b":2,"a":1}``, printed alike, are two GROUP BY keys, as in Flink 2.3:
``scripts/flink_variant.py`` case ``objects_group``).

Equality, hashing and state then need nothing of their own (the carried text is the value), and
:func:`flink_text` gives what Flink prints. Every reader of a VARIANT's text that shows it (the
print sink, collected rows, the JSON functions) goes through :func:`flink_text` /
:func:`flink_texts`.
"""

from __future__ import annotations

import re

import pyarrow as pa

DICTIONARY = "\x1f"
"""What separates a carried VARIANT's JSON text from its document's key dictionary (when it has keys)."""

#: A JSON string (kept as it is) or a number with a fraction (a DECIMAL, or a DOUBLE with an exponent).
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|-?\d+\.\d+(?:E-?\d+)?')


def double_text(java: str) -> str:
    """The carried text of a DOUBLE whose Java ``Double.toString`` is ``java`` (``E0`` added if needed)."""
    return java if "E" in java or java.endswith("Infinity") or java == "NaN" else java + "E0"


def _shown(m: re.Match) -> str:
    token = m.group()
    if token[0] == '"':
        return token
    if "E" in token:  # a DOUBLE: Java's text is the carried one less the E0 it was given
        return token[:-2] if token.endswith("E0") else token
    whole, fraction = token.split(".")
    fraction = fraction.rstrip("0")
    if not fraction:
        return "0" if whole == "-0" else whole
    return f"{whole}.{fraction}"


def flink_text(carried: str) -> str:
    """What Flink prints of the VARIANT carried as ``carried`` (see the module docstring).

    ``[1,1.0,1.00,1.0E0,2.50,1.0E10]`` is ``[1,1,1,1.0,2.5,1.0E10]``.
    """
    carried = carried.split(DICTIONARY, 1)[0]
    if "." not in carried:  # integers, strings without a dot, literals: written alike
        return carried
    return _TOKEN.sub(_shown, carried)


def flink_texts(carried: pa.Array | pa.ChunkedArray) -> pa.Array:
    """:func:`flink_text` of each value of a string column (NULL stays NULL)."""
    return pa.array([None if v is None else flink_text(v) for v in carried.to_pylist()], pa.string())
