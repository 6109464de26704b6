"""The VARIANT type's values: PARSE_JSON, TRY_PARSE_JSON and access ``v['key']`` / ``v[i]``, as Flink 2.3.

A VARIANT value is carried as its JSON text in the form Flink writes it (``BinaryVariant.toString``,
what the ``print`` connector shows), but for its numbers, which keep their kind
(:mod:`streamsql.core.variant_text`: ``1``, ``1.0`` and ``1.0E0`` are an integer, a DECIMAL and a
DOUBLE, printed ``1``, ``1`` and ``1.0``), so that keying (GROUP BY, DISTINCT, state) and equality
need nothing of their own, and the readers that show it print it through
:func:`~streamsql.core.variant_text.flink_text`:

- an object's members sorted by key in Java's ``String`` order (UTF-16 code units), compact
  (``{"a":2,"b":1}``): Flink's ``BinaryVariantInternalBuilder`` sorts the fields of an object;
- an integer that fits a ``long`` as it is; another number without an exponent a DECIMAL when its
  precision and scale are at most 38, its scale kept (``2.50``, printed ``2.5``; ``100.00``, printed
  ``100``; ``-0.0`` is ``0.0``, printed ``0``); every other number a DOUBLE (``1e2``, printed
  ``100.0``; ``1.0E-7``);
- strings escaped as Jackson writes them.

Duplicate keys fail PARSE_JSON (``VARIANT_DUPLICATE_KEY``) unless ``allow_duplicate_keys`` is TRUE,
then the last value is kept, as Flink. Only the first JSON value of the text is read (Jackson's
parser: ``1 2`` is ``1``), but a root number must be followed by whitespace or the end and a root
literal by no identifier character (``01``, ``1.``, ``1x``, ``truex`` fail, as Jackson's root checks);
documents up to 1000 levels deep are read, deeper fail (Jackson's nesting limit); a lone surrogate
in a string is ``?`` (Java's UTF-8 encoder). TRY_PARSE_JSON gives NULL where PARSE_JSON fails the job.

Access is 1-based for arrays (an index out of range, 0 or below, is NULL), by exact key for objects
(a missing key is NULL); a key on a value that is not an object, or an index on one that is not an
array, fails the job with Flink's message. The result is a VARIANT (JSON ``null`` stays a value).

Parsing and access run row by row in Python (:mod:`json`), in the calls over VARIANT values only.
Checked against Flink 2.3 by ``scripts/flink_variant.py`` (``tests/functions/variant_flink.json``).

A value also carries the key dictionary of the document it was read from (its keys in the order
first named), as Flink's variant carries its metadata, so two equal objects read from documents that
named their keys in other orders are two GROUP BY keys, as in Flink.

Known difference: Flink's ``=`` of two VARIANTs compares the whole documents they were accessed in and
the values' positions there (``BinaryVariant.equals``); here the values (and dictionaries), so
``v[3] = v[16]`` of two equal DOUBLEs of one array is TRUE here, FALSE in Flink.
"""

from __future__ import annotations

import json
import re
from decimal import Decimal

import pyarrow as pa
from sqlglot import exp

from streamsql.core.types import SqlType
from streamsql.core.variant_text import DICTIONARY, double_text
from streamsql.functions.python_functions import ResultError
from streamsql.functions.scalars.json_errors import JsonError
from streamsql.functions.scalars.json_path import (
    _string,
    _utf16_key,
    check_root_end,
    decode_nested,
    deep_call,
    java_double,
    java_utf8,
)
from streamsql.functions.scalars.operand_types import CONSTANT_VARIANT, calcite_type
from streamsql.functions.scalars.registry import Arg, Call, Refusal, expected_signatures, python_call, scalar

VARIANT = SqlType("VARIANT")
_LONG = 2**63
_MAX_DECIMAL = 38  # Flink's MAX_DECIMAL16_PRECISION: precision and scale of a variant DECIMAL


class VariantError(ValueError):
    """A text PARSE_JSON cannot read, or an access Flink fails the job on; the message is Flink's."""


class _Number(str):
    """A number's carried text (:mod:`streamsql.core.variant_text`; written as it is, not quoted)."""

    __slots__ = ()


def _decimal_text(text: str) -> str | None:
    """The carried text of ``BigDecimal(text)`` if it fits a variant DECIMAL, else None.

    As Flink's ``tryParseDecimal``: only text of digits, ``-`` and ``.`` (no exponent), precision and
    scale at most 38 (a BigDecimal's precision counts the unscaled digits, 1 for zero). The scale is
    kept (``2.50``); a zero has no sign (``-0.0`` is ``0.0``).
    """
    if not all(c.isdigit() or c in "-." for c in text):
        return None
    d = Decimal(text)
    _, digits, exponent = d.as_tuple()  # digits: the unscaled value's, no leading zero (0: one digit)
    if -exponent > _MAX_DECIMAL or len(digits) > _MAX_DECIMAL:
        return None
    return format(abs(d) if d.is_zero() else d, "f")


def _integer(text: str) -> _Number:
    if -_LONG <= int(text) < _LONG:
        return _Number(str(int(text)))
    return _floating(text)


def _floating(text: str) -> _Number:
    return _Number(_decimal_text(text) or double_text(java_double(float(text))))


def _no_constant(name: str):
    msg = f"Non-standard token '{name}': enable `JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS` to allow"
    raise VariantError(msg)


class _Duplicate(Exception):  # noqa: N818  (Flink's VariantTypeException, by its message)
    pass


def _strict_object(pairs: list) -> dict:
    out = dict(pairs)
    if len(out) != len(pairs):
        raise _Duplicate
    return out


_DECODERS = {
    allow: json.JSONDecoder(parse_int=_integer, parse_float=_floating, parse_constant=_no_constant,
                            object_pairs_hook=dict if allow else _strict_object, strict=True)
    for allow in (False, True)
}
#: Reads a VARIANT's own text: numbers (``Infinity`` too, which Flink writes bare) kept as written.
_RAW = json.JSONDecoder(parse_int=_Number, parse_float=_Number, parse_constant=_Number, strict=True)


def write(value) -> str:
    """The JSON text of a decoded value in Flink's form (members sorted by key, compact)."""
    if isinstance(value, _Number):
        return str.__str__(value)
    if isinstance(value, str):
        return _string(value)
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return "[" + ",".join(write(v) for v in value) + "]"
    items = sorted(value.items(), key=lambda kv: _utf16_key(kv[0]))
    return "{" + ",".join(f"{_string(k)}:{write(v)}" for k, v in items) + "}"


def parse(text: str, allow_duplicate_keys: bool = False) -> str:
    """The VARIANT of JSON ``text``, as its text in Flink's form (see the module docstring).

    Raises:
        VariantError: text that does not start with a JSON value, or an object with a key twice
            (unless ``allow_duplicate_keys``); the message is Flink's ``Failed to parse json string``.
    """
    start = len(text) - len(text.lstrip(" \t\r\n"))
    try:
        if start == len(text):
            msg = "Unexpected null token"
            raise VariantError(msg)
        value, end = decode_nested(_DECODERS[allow_duplicate_keys], text, start)
        check_root_end(text, start, end)
    except _Duplicate:
        msg = f"Failed to parse json string: {text} (VARIANT_DUPLICATE_KEY)"
        raise VariantError(msg) from None
    except (json.JSONDecodeError, VariantError, JsonError) as e:
        msg = f"Failed to parse json string: {text} ({getattr(e, 'msg', e)})"
        raise VariantError(msg) from None
    out = deep_call(write, value) + _dictionary(text[start:end])
    return java_utf8(out) if "\\u" in text else out  # a lone surrogate comes only from an escape


#: A JSON string, and the ``:`` after it when it is an object's key.
_STRING = re.compile(r'"((?:[^"\\]|\\.)*)"(\s*:)?')


def _dictionary(document: str) -> str:
    """The carried key dictionary of a JSON document's text (:mod:`streamsql.core.variant_text`).

    ``""`` without object keys, else the separator and the keys in the order first named, as a JSON
    array (Flink's variant builder adds a key to its metadata when its parser meets it).
    """
    if "{" not in document:
        return ""
    keys = dict.fromkeys(json.loads(f'"{m.group(1)}"') for m in _STRING.finditer(document) if m.group(2))
    return DICTIONARY + "[" + ",".join(_string(k) for k in keys) + "]" if keys else ""


def element(text: str, key: str | int):
    """``v[key]``: the member ``key`` (a str) or the 1-based element ``key`` (an int) of a VARIANT.

    None (SQL NULL) for a missing member or an index out of range.

    Raises:
        VariantError: a key on a value that is not an object, an index on one that is not an array
            (Flink's messages).
    """
    text, mark, keys = text.partition(DICTIONARY)  # the document's dictionary stays with the value
    value = deep_call(_RAW.decode, text)
    if isinstance(key, str):
        if not isinstance(value, dict):
            msg = ("String key access on variant requires an object variant, but a non-object variant was "
                   "provided.")
            raise VariantError(msg)
        return deep_call(write, value[key]) + mark + keys if key in value else None
    if not isinstance(value, list):
        msg = ("Integer index access on variant requires an array variant, but a non-array variant was "
               "provided.")
        raise VariantError(msg)
    return deep_call(write, value[key - 1]) + mark + keys if 1 <= key <= len(value) else None


def _parse_array(strings: pa.ChunkedArray, flags: pa.ChunkedArray | None, tolerant: bool) -> pa.Array:
    """PARSE_JSON / TRY_PARSE_JSON over a batch (a NULL text or flag is NULL)."""
    texts = strings.to_pylist()
    allow = flags.to_pylist() if flags is not None else [False] * len(texts)
    out = []
    for s, a in zip(texts, allow):
        if s is None or a is None:
            out.append(None)
            continue
        try:
            out.append(parse(s, a))
        except VariantError as e:
            if not tolerant:
                raise ResultError(str(e)) from None
            out.append(None)
    return pa.array(out, pa.string())


def _element_array(values: pa.ChunkedArray, keys: pa.ChunkedArray) -> pa.Array:
    out = []
    for v, k in zip(values.to_pylist(), keys.to_pylist()):
        try:
            out.append(None if v is None or k is None else element(v, k))
        except VariantError as e:
            raise ResultError(str(e)) from None
    return pa.array(out, pa.string())


def _result(c: Call) -> SqlType:
    """VARIANT, NOT NULL for PARSE_JSON over NOT NULL arguments (as Flink's TYPEOF shows)."""
    nullable = c.name.upper() == "TRY_PARSE_JSON" or any(a.type is None or a.type.nullable for a in c.args)
    return VARIANT.with_nullable(nullable)


_PARSE = {(tolerant, n): python_call(f"{'TRY_' if tolerant else ''}PARSE_JSON",
                                     (lambda s, f=None, t=tolerant: _parse_array(s, f, t)),
                                     ("VARCHAR", "BOOLEAN")[:n], "VARCHAR")
          for tolerant in (False, True) for n in (1, 2)}
_ELEMENT = {kind: python_call(f"VARIANT_{kind}", _element_array, ("VARCHAR", duck), "VARCHAR")
            for kind, duck in (("KEY", "VARCHAR"), ("INDEX", "BIGINT"))}

_SIGNATURES = (("STRING",), ("STRING", "BOOLEAN"))
_DIFFERENCES = ("A value keeps its number's kind and its document's key dictionary, as Flink's, but "
                "not its position: `=` of values accessed from documents compares the values here, the "
                "documents and positions in Flink (`v[1] = v[2]` of `[1, 1]` is FALSE there; "
                "[VARIANT](types.md#variant)).")


def _refusal(name: str) -> Refusal:
    """Flink's refusal of ``name`` over other argument types (its new type inference's signatures)."""
    return expected_signatures(name, ("<CHARACTER_STRING>",), ("<CHARACTER_STRING>", "<BOOLEAN>"))


@scalar("PARSE_JSON", group="json", sig=_SIGNATURES, result=_result, cast=False,
        refusal=_refusal("PARSE_JSON"), differences=_DIFFERENCES,
        nulls="NULL if the text is NULL; fails the job on text that is not JSON, or an object with a key "
              "twice unless allow_duplicate_keys is TRUE (then the last value is kept)")
def parse_json(c: Call) -> exp.Expression:
    """PARSE_JSON(s [, allow_duplicate_keys]): the VARIANT of JSON text ``s``."""
    return _constant(c, _PARSE[False, len(c.args)](c))


@scalar("TRY_PARSE_JSON", group="json", sig=_SIGNATURES, result=_result, cast=False,
        refusal=_refusal("TRY_PARSE_JSON"), differences=_DIFFERENCES,
        nulls="NULL if the text is NULL or not JSON, or an object has a key twice unless "
              "allow_duplicate_keys is TRUE (then the last value is kept)")
def try_parse_json(c: Call) -> exp.Expression:
    """TRY_PARSE_JSON(s [, allow_duplicate_keys]): PARSE_JSON, NULL where it would fail."""
    return _constant(c, _PARSE[True, len(c.args)](c))


def _constant(c: Call, out: exp.Expression) -> exp.Expression:
    """``out``, positioned as the call (an operator's error over it), marked constant over literals.

    (:data:`~.operand_types.CONSTANT_VARIANT`: every argument is a literal.)
    """
    out.meta.update({k: v for k, v in c.node.meta.items() if k in ("line", "col", "start", "end")})
    if all(a.is_literal for a in c.args):
        out.meta[CONSTANT_VARIANT] = True
    return out


def access(base: exp.Expression, key: exp.Expression, key_type: SqlType | None, node: exp.Expression):
    """``v[key]`` over a VARIANT ``base``: a member by a STRING key, an element by an integer index.

    Returns:
        The DuckDB form (a VARIANT, nullable).

    Raises:
        ValueError: a key of another type (the binder positions it at ``node``).
    """
    name = "NULL" if key_type is None else key_type.name
    integers = ("TINYINT", "SMALLINT", "INT", "BIGINT")
    kind = "KEY" if name == "STRING" else "INDEX" if name in integers else None
    if kind is None:  # Calcite's ITEM operator, in Flink 2.3's words
        msg = (f"Cannot apply 'ITEM' to arguments of type 'ITEM(<VARIANT>, <{calcite_type(key_type)}>)'. "
               "Supported form(s): <ARRAY>[<INTEGER>]\n<MAP>[<ANY>]\n<ROW>[<CHARACTER>|<INTEGER>]\n"
               "<VARIANT>[<CHARACTER>|<INTEGER>]")
        raise ValueError(msg)
    return _ELEMENT[kind](Call("[]", [Arg(base, VARIANT), Arg(key, key_type)], node))

