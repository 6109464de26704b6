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

Paths are compiled by :mod:`.json_path_compiler` (Jayway's ``PathCompiler``). A definite path's
value is the one thing found, an indefinite one's the list of its matches. Functions
(:mod:`.json_path_functions`) apply to what the path found before them; a function's or a
filter's (:mod:`.json_filter`) own failure is an error in lax mode too (:class:`JsonPathFailure`);
a filter's existence test, JSON literal or array value fails the job, as in Flink 2.3
(:class:`FlinkJobFailure`). A deep scan ``..`` takes its next step at every node Jayway's scan
predicate matches (:func:`_scan`).

:func:`jsonize` writes a value as Flink's Jackson does (keys sorted, compact, numbers as parsed).
"""

from __future__ import annotations

import json
import re
import unicodedata
from decimal import Decimal
from typing import NamedTuple

from streamsql.core.json_nesting import TOO_DEEP, exceeds, recursion_room
from streamsql.functions.scalars import json_filter, json_path_functions
from streamsql.functions.scalars.json_errors import FlinkJobFailure, JsonError, JsonPathFailure
from streamsql.functions.scalars.json_path_compiler import CompiledPath, Unsupported, compile_path

__all__ = ["CompiledPath", "FlinkJobFailure", "JsonError", "JsonPathFailure", "Unsupported", "compile_path",
           "evaluate"]

def _no_constant(name: str):
    msg = f"Non-standard token '{name}'"
    raise JsonError(msg)


#: Jackson's ``StreamReadConstraints`` default (2.15+, Flink 2.3's): a number with more digits is an
#: error (PyFlink 2.3: 1,000 digits are read, one more is not; tests/functions/difffuzz_regressions.txt).
#: Its nesting limit is :mod:`streamsql.core.json_nesting`'s.
MAX_DIGITS = 1000


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


def decode_nested(decoder: json.JSONDecoder, text: str, start: int):
    """``decoder.raw_decode(text, start)`` with Jackson's nesting limit (Python's recursion limit is not it).

    Returns:
        ``(value, end)`` as ``raw_decode``; a document up to Jackson's limit deep is read
        (:mod:`streamsql.core.json_nesting`).

    Raises:
        JsonError: a document nested deeper (Jackson's message).
        json.JSONDecodeError: text that is not JSON.
    """
    try:
        return decoder.raw_decode(text, start)
    except RecursionError:
        pass
    if exceeds(text, start):
        raise JsonError(TOO_DEEP) from None
    with recursion_room(2):  # the scanner recurses once per level
        return decoder.raw_decode(text, start)


def java_utf8(value):
    r"""``value`` (a string, a list of them, or another scalar) with each lone surrogate as ``?``.

    As Java writes a String to UTF-8 (Flink 2.3: ``JSON_VALUE('{"a":"\ud83d"}', '$.a')`` is ``?``).
    """
    if isinstance(value, str):
        return value.encode("utf-8", "replace").decode("utf-8")
    return [java_utf8(v) for v in value] if isinstance(value, list) else value


def deep_call(fn, *args):
    """``fn(*args)`` over a document nested up to Jackson's limit (1000) deep, as Jackson reads it.

    Python's recursion limit, which the walks over a parsed value meet first (two or three frames a
    level: :func:`java_text`, a VARIANT's writer), is raised for a call that meets it, which then
    runs again (``fn`` must have no side effect).
    """
    try:
        return fn(*args)
    except RecursionError:
        pass
    with recursion_room(4):
        return fn(*args)


def _decode(text: str, start: int):
    return decode_nested(_DECODER, text, start)


def parse_document(text: str):
    """The first JSON value of ``text``, as Jackson reads it (what follows it is not read).

    A root number or literal followed by other text fails, as :func:`check_root_end`.

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
    check_root_end(text, start, end)
    return value


#: The characters Jackson accepts after a number at the root (``_verifyRootSpace``).
_ROOT_SPACE = ("", " ", "\t", "\r", "\n")
#: Java's ``Character.isJavaIdentifierPart`` by Unicode category (and its identifier-ignorable controls).
_IDENTIFIER_PART = frozenset(("Lu", "Ll", "Lt", "Lm", "Lo", "Sc", "Pc", "Nd", "Nl", "Mc", "Mn", "Cf"))


def check_root_end(text: str, start: int, end: int) -> None:
    """Refuse what Jackson's parser refuses right after a scalar at the root (Python's stops before it).

    A number must end the text or be followed by a space, tab, CR or LF (``01``, ``1.``, ``1e``,
    ``1x`` and ``1,2`` fail, ``1 2`` is ``1``); ``true``, ``false`` and ``null`` must not be
    followed by a character of a Java identifier (``truex`` fails, ``true,`` is ``true``), as
    Jackson's ``_matchToken``. Nothing is checked after a string, an array or an object.

    Raises:
        JsonError: Jackson's reason.
    """
    first, after = text[start], text[end:end + 1]
    if (first == "-" or first.isdigit()) and after not in _ROOT_SPACE:
        msg = f"Unexpected character ('{after}'): Expected space separating root-level values"
        raise JsonError(msg)
    if first in "tfn" and after and after >= "0" and after not in "]}" and (
            unicodedata.category(after) in _IDENTIFIER_PART or "\x7f" <= after <= "\x9f"):
        msg = f"Unrecognized token '{text[start:end]}{after}'"
        raise JsonError(msg)


_NOT_FOUND = object()


def evaluate(doc: str, spec: str):
    """The value Flink's path ``spec`` finds in document ``doc``: (found value or None, error or None).

    None with no error is "empty" (nothing found, or JSON null); an error is a :class:`JsonError`.
    An indefinite path (a wildcard, a scan, several indexes, a slice) finds the list of its
    matches, empty or not, as Jayway. Raises :class:`Unsupported` for a path :func:`compile_path`
    refuses.
    """
    path = compile_path(spec)
    mode = path.mode
    try:
        value = parse_document(doc)
    except JsonError as e:
        return (None, None) if mode == "LAX" else (None, e)
    if value is None:
        return None, JsonError("json can not be null")
    if path.job_failure is not None:
        raise FlinkJobFailure(path.job_failure)
    if path.error is not None:  # SqlJsonUtils: Jayway's compile error is an error in either mode
        return None, JsonError(path.error)
    if not path.definite or not all(t[0] in ("member", "index") for t in path.tokens):
        return _walked(path, value)
    where = "$"
    for n, (kind, key) in enumerate(path.tokens):
        leaf = n == len(path.tokens) - 1
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


def _token_text(token: tuple) -> str:
    kind = token[0]
    if kind == "indexes":
        return "[" + ",".join(str(n) for n in token[1]) + "]"
    if kind == "slice":
        lo, hi = ("" if b is None else str(b) for b in token[1:])
        return f"[{lo}:{hi}]"
    return f"[{token[1]}]" if kind == "index" else f"['{token[1]}']" if kind == "member" else "[*]"


class _Ctx(NamedTuple):
    """A walk's configuration.

    ``lax`` (Jayway's ``SUPPRESS_EXCEPTIONS``), ``root`` the document (``$`` in a filter or a
    parameter), ``require`` (``REQUIRE_PROPERTIES``: a missing leaf raises, as
    a filter's existence test reads its path).
    """

    lax: bool
    root: object
    require: bool = False


def _walked(path: CompiledPath, doc):
    """``evaluate`` of a path with filters, functions, several members or indefinite steps.

    As Jayway's ``JsonPath.read`` (a definite path's value is its last match; none is empty in lax mode, an
    error in strict mode).
    """
    found: list = []
    try:
        _walk(path.tokens, 0, doc, "$", _Ctx(path.mode == "LAX", doc), True, found)
    except JsonPathFailure as e:
        return None, e
    except JsonError as e:
        return _missing(path.mode, str(e))
    if not path.definite:
        return found, None
    if not found:
        return _missing(path.mode, "No results for path: $" + "".join(_token_text(t) for t in path.tokens))
    if found[-1] is None and path.mode == "STRICT":
        return None, JsonError("Strict jsonpath mode requires a non empty returned value, but is null")
    return found[-1], None


def _read_in_filter(ctx: _Ctx):
    """The ``read`` of :func:`.json_filter.accept`: a filter's path from its start, as a value node.

    As Jayway's ``PathNode.evaluate``: an existence test reads with ``REQUIRE_PROPERTIES`` (found:
    true; a missing member: false); a value read finds null for nothing in a lax path (its
    ``SUPPRESS_EXCEPTIONS``), undefined in a strict one, and a list for an indefinite path.
    """

    def read(compiled: tuple, start, root, exists: bool) -> json_filter.Value:
        tokens, definite = compiled
        found: list = []
        sub = _Ctx(False, root, True) if exists else _Ctx(ctx.lax, root)
        try:
            _walk(tokens, 0, start, "@", sub, True, found)
        except JsonPathFailure:
            raise
        except JsonError:
            return json_filter.Value("bool", False) if exists else json_filter.UNDEFINED
        if exists:
            return json_filter.Value("bool", bool(found) or not definite)
        if not definite:
            return json_filter.of(found)
        if not found:
            return json_filter.Value("null") if ctx.lax else json_filter.UNDEFINED
        return json_filter.of(found[-1])

    return read


def _walk(tokens: tuple, n: int, model, where: str, ctx: _Ctx, definite: bool, out: list) -> None:  # noqa: C901, PLR0912
    """Jayway's evaluation of ``tokens[n:]`` from ``model``, each match appended to ``out``.

    ``definite``: the tokens before ``n`` are all definite (Jayway's ``isUpstreamDefinite``): only
    then does a step that cannot apply raise, and only in strict mode; else it finds nothing.

    Raises:
        JsonError: Jayway's ``PathNotFoundException`` of a strict path's definite prefix.
        JsonPathFailure: what Jayway raises in either mode (a function's error, a filter over a
            scalar).
    """
    lax = ctx.lax
    if n == len(tokens):
        out.append(model)
        return
    token = tokens[n]
    kind, leaf = token[0], n == len(tokens) - 1
    if kind == "filter":
        if isinstance(model, dict):
            if json_filter.accept(token[1], model, ctx.root, _read_in_filter(ctx)):
                _walk(tokens, n + 1, model, where, ctx, False, out)
        elif isinstance(model, list):
            read = _read_in_filter(ctx)
            for i, v in enumerate(model):
                if json_filter.accept(token[1], v, ctx.root, read):
                    _walk(tokens, n + 1, v, f"{where}[{i}]", ctx, False, out)
        elif definite:
            msg = f"Filter: [?] can not be applied to primitives. Current context is: {java_text(model)}"
            raise JsonPathFailure(msg)
        return
    if kind == "function":
        if token[1] not in json_path_functions.NAMES:
            msg = f"Function of name: {token[1]} cannot be created"
            raise JsonPathFailure(msg)
        value = json_path_functions.invoke(token[1], model, [_argument(p, ctx) for p in token[2]])
        if not leaf:  # Jayway's FunctionPathToken adds its result before the next step: lax $.a.min().x
            out.append(value)
        _walk(tokens, n + 1, value, f"{where}.{token[1]}", ctx, definite, out)
        return
    if kind == "members":
        if not isinstance(model, dict):
            if lax or not definite:
                return
            found = "null" if model is None else java_class(model)
            msg = f"Expected to find an object with property {_token_text(token)} in path {where} but found "
            msg += f"'{found}'."
            raise JsonError(msg)
        if leaf:  # merged into one object: the members present (JSON null included)
            out.append({k: model[k] for k in token[1] if k in model})
            return
        for key in token[1]:
            if key in model:
                _walk(tokens, n + 1, model[key], f"{where}['{key}']", ctx, False, out)
        return
    if kind == "member":
        key = token[1]
        here = f"{where}['{key}']"
        if not isinstance(model, dict):
            if lax or not definite:
                return
            found = "null" if model is None else java_class(model)
            msg = (f"Expected to find an object with property ['{key}'] in path {where} but found "
                   f"'{found}'. This is not a json object according to the JsonProvider: "
                   "'com.jayway.jsonpath.spi.json.JacksonJsonProvider'.")
            raise JsonError(msg)
        if key not in model:
            if leaf and ctx.require:
                msg = f"No results for path: {here}"
                raise JsonError(msg)
            if leaf or lax or not definite:  # a missing leaf is no match (no REQUIRE_PROPERTIES)
                return
            msg = f"Missing property in path {here}"
            raise JsonError(msg)
        _walk(tokens, n + 1, model[key], here, ctx, definite, out)
    elif kind == "wild":
        if isinstance(model, dict):
            for key, v in model.items():
                _walk(tokens, n + 1, v, f"{where}['{key}']", ctx, False, out)
        elif isinstance(model, list):
            for i, v in enumerate(model):
                _walk(tokens, n + 1, v, f"{where}[{i}]", ctx, False, out)
    elif kind == "scan":
        if not leaf:  # a scan with no step after it (``$..f()``'s parameter ``$..``) finds nothing
            _scan(tokens, n + 1, model, where, ctx, out)
    else:  # index, indexes, slice: ArrayPathToken's checkArrayModel first
        if not isinstance(model, list):
            if lax or not definite:
                return
            msg = (f"The path {where} is null" if model is None else f"Filter: {_token_text(token)} can only "
                   f"be applied to arrays. Current context is: {java_text(model)}")
            raise JsonError(msg)
        size = len(model)
        if kind == "index":
            picks = [token[1]]
        elif kind == "indexes":
            picks = list(token[1])
        else:
            picks = list(range(*_slice_bounds(token[1], token[2], size)))
        still = definite and kind == "index"
        for i in picks:
            j = i + size if i < 0 else i
            if 0 <= j < size:  # Jayway skips an index out of range
                _walk(tokens, n + 1, model[j], f"{where}[{j}]", ctx, still, out)


def _slice_bounds(lo: int | None, hi: int | None, size: int) -> tuple[int, int]:
    """Jayway's ``ArraySliceToken``: [from:], [:to], [from:to]; a negative bound counts from the end."""
    start = 0 if lo is None else (max(0, size + lo) if lo < 0 else lo)
    end = size if hi is None else (size + hi if hi < 0 else min(size, hi))
    return start, max(start, end)


def _scan_predicate(tokens: tuple, n: int, ctx: _Ctx):
    """Jayway's ``ScanPathToken.createScanPredicate`` for the step ``tokens[n]`` after a scan.

    Which nodes the step is taken at: a member at an object that has it (several members at the
    leaf: one that has them all; several before another step: any object); an index, indexes or a
    slice at an array; a wildcard anywhere; a filter where it accepts the node; a function or
    another scan nowhere (Jayway's ``FALSE_PREDICATE``).
    """
    token = tokens[n]
    kind, leaf = token[0], n == len(tokens) - 1
    if kind == "member":
        return lambda m: isinstance(m, dict) and token[1] in m
    if kind == "members":
        return lambda m: isinstance(m, dict) and (not leaf or all(k in m for k in token[1]))
    if kind in ("index", "indexes", "slice"):
        return lambda m: isinstance(m, list)
    if kind == "wild":
        return lambda m: True
    if kind == "filter":
        read = _read_in_filter(ctx)
        return lambda m: json_filter.accept(token[1], m, ctx.root, read)
    return lambda m: False


def _scan(tokens: tuple, n: int, model, where: str, ctx: _Ctx, out: list, matches=None) -> None:
    """Jayway's deep scan (``ScanPathToken``) of the step ``tokens[n]``, pre-order.

    The step is taken at every node :func:`_scan_predicate` matches (Jayway's ``walkObject``): at a
    matching array, when the step is not the last, Jayway skips it and takes the *next* step on
    each element (its ``walkArray``: ``$..[0][0]`` is the first item of every element of every
    array), but a last single member there is kept only from the element whose index the skipped
    step reads (``PathToken.handleObjectProperty``'s upstream array index: ``$..[0].b`` is the b
    of every array's first element, ``$..[-1].b``, ``$..[0,1].b`` and ``$..[1:].b`` find nothing),
    as Flink 2.3 answers; then the scan goes on into every member and element.
    """
    if matches is None:
        matches = _scan_predicate(tokens, n, ctx)
    if isinstance(model, dict):
        if matches(model):
            _walk(tokens, n, model, where, ctx, False, out)
        for k, v in model.items():
            if isinstance(v, (dict, list)):
                _scan(tokens, n, v, f"{where}['{k}']", ctx, out, matches)
    elif isinstance(model, list):
        if matches(model):
            if n == len(tokens) - 1:
                _walk(tokens, n, model, where, ctx, False, out)
            elif n + 2 == len(tokens) and tokens[n + 1][0] == "member":
                # Jayway's leaf member after walkArray's upstream index: kept only where the step
                # before it reads "[idx]" (``$..[0].b``: element 0's b; ``$..[1:].b``: nothing)
                for i, v in enumerate(model):
                    if tokens[n] == ("index", i):
                        _walk(tokens, n + 1, v, f"{where}[{i}]", ctx, False, out)
            else:
                for i, v in enumerate(model):
                    _walk(tokens, n + 1, v, f"{where}[{i}]", ctx, False, out)
        for i, v in enumerate(model):
            if isinstance(v, (dict, list)):
                _scan(tokens, n, v, f"{where}[{i}]", ctx, out, matches)


def _argument(param: tuple, ctx: _Ctx):
    """A function parameter's value: JSON as Flink's Jackson reads it, a path's value from the document.

    Raises:
        JsonPathFailure: JSON that does not parse; a strict path that finds nothing.
    """
    if param[0] == "json":
        try:
            return parse_document(param[1])
        except JsonError as e:
            raise JsonPathFailure(str(e)) from None
    _, tokens, definite = param
    found: list = []
    try:
        _walk(tokens, 0, ctx.root, "$", ctx, True, found)
    except JsonPathFailure:
        raise
    except JsonError as e:
        raise JsonPathFailure(str(e)) from None
    if not definite:
        return found
    if not found:
        if ctx.lax:
            return None
        msg = "No results for path: $" + "".join(_token_text(t) for t in tokens)
        raise JsonPathFailure(msg)
    return found[-1]


def _missing(mode: str, message: str):
    return (None, None) if mode == "LAX" else (None, JsonError(message))


def java_class(value) -> str:
    """The Java class Flink's Jackson reads a scalar as."""
    return {bool: "java.lang.Boolean", str: "java.lang.String", list: "java.util.ArrayList",
            Decimal: "java.math.BigDecimal", float: "java.lang.Double",
            dict: "java.util.LinkedHashMap"}.get(type(value)) or java_number_class(value)


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
    if isinstance(value, float):
        return java_double(value)
    return decimal_text(value) if isinstance(value, Decimal) else str(value)


def java_double(value: float) -> str:
    """Java's ``Double.toString`` (a Jayway function's ``Double`` result: ``11.5``, ``1.0E10``)."""
    import pyarrow as pa  # noqa: PLC0415  (only for a function's Double)

    from streamsql.core.float_text import java_float_text  # noqa: PLC0415

    return java_float_text(pa.array([value], pa.float64()))[0].as_py()


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
