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

Paths are compiled as Jayway's ``PathCompiler`` does (:func:`compile_path`, once per distinct text):
member and index steps (``$``, ``.name``, ``['name']``, ``[n]``, ``[-n]``) make a definite path,
whose value is the one thing found; wildcards (``*``, ``[*]``), several indexes (``[0,1]``), slices
(``[0:2]``) and the deep scan ``..name`` an indefinite one, whose value is the list of matches. A
path Jayway does not compile (``$.``, ``$a``, ``$."a b"``) is an error of every row; a name is read
up to the next ``.`` or ``[`` (``$.'x'`` is the member ``'x'``, quotes included). Several
bracketed members (``['a','b']``) merge into one object at the leaf and are indefinite elsewhere;
filters ``[?(...)]`` (:mod:`.json_filter`) are indefinite; functions (``.length()``, ``.sum()``,
:mod:`.json_path_functions`) are definite, applied to what the path found before them, and
``$..a.f()`` is ``$.f($..a)``, as Jayway. A function's or a filter's own failure is an error in lax
mode too (:class:`JsonPathFailure`); a filter's existence test or JSON literal fails the job, as
in Flink 2.3 (:class:`FlinkJobFailure`). A scan before a step other than a member or a filter is
not evaluated (:class:`Unsupported`).

:func:`jsonize` writes a value as Flink's Jackson does (keys sorted, compact, numbers as parsed).
"""

from __future__ import annotations

import json
import re
import sys
from decimal import Decimal
from functools import lru_cache
from typing import NamedTuple, NoReturn

from streamsql.functions.scalars import json_filter, json_path_functions
from streamsql.functions.scalars.json_errors import FlinkJobFailure, JsonError, JsonPathFailure

__all__ = ["CompiledPath", "FlinkJobFailure", "JsonError", "JsonPathFailure", "Unsupported", "compile_path",
           "evaluate"]

_MODE = re.compile(r"^\s*(strict|lax)\s+(.+)$", re.IGNORECASE | re.DOTALL)
_INDEXES = re.compile(r"\s*-?\d+\s*(?:,\s*-?\d+\s*)*")
_SLICE = re.compile(r"\s*(-?\d+)?\s*:\s*(-?\d+)?\s*")


class Unsupported(ValueError):
    """A path Jayway evaluates that is not evaluated here.

    A scan other than ``..member``, ``..[?(...)]`` and ``..member.f()``.
    """


class CompiledPath(NamedTuple):
    """A path as Jayway compiles it: its mode, tokens, whether it is definite, or its syntax error.

    Tokens: ``("member", name)``, ``("index", n)`` (definite); ``("indexes", (n, ...))``,
    ``("slice", from, to)``, ``("wild",)``, ``("scan",)`` (indefinite: the path's value is the list
    of what it finds). ``error``: Flink's message for Jayway's ``InvalidPathException``, an error
    of every row (ON ERROR, in lax mode too, where the document parses).
    """

    mode: str
    tokens: tuple
    definite: bool
    error: str | None = None
    job_failure: str | None = None


def _fail(msg: str) -> NoReturn:
    """Raise Jayway's ``InvalidPathException`` (its message) as a :class:`JsonError`."""
    raise JsonError(msg)


def _bracket(text: str, pos: int) -> tuple[tuple, int]:
    """The token of the ``[...]`` at ``pos`` and the position after it (Jayway's bracket forms)."""
    close = text.find("]", pos)
    inner = text[pos + 1:close] if close >= 0 else ""
    stripped = inner.strip()
    if stripped[:1] in ("'", '"'):  # ['a'] / ["a"] / ['a','b']: quoted names, backslash escapes
        names, i, q = [], pos + 1, None
        while True:
            while i < len(text) and text[i] == " ":
                i += 1
            if i >= len(text) or text[i] not in "'\"":
                _fail(f"Could not parse token starting at position {pos}. Expected ?, ', 0-9, * ")
            q, j, buf = text[i], i + 1, []
            while j < len(text) and text[j] != q:
                if text[j] == "\\" and j + 1 < len(text):
                    j += 1
                buf.append(text[j])
                j += 1
            if j >= len(text):
                _fail(f"Property has not been closed - missing closing {q}")
            names.append("".join(buf))
            i = j + 1
            while i < len(text) and text[i] == " ":
                i += 1
            if i < len(text) and text[i] == ",":
                i += 1
                continue
            if i < len(text) and text[i] == "]":
                break
            _fail(f"Property must be separated by comma or Property must be terminated close square "
                           f"bracket at index {i}")
        if len(names) > 1:  # Jayway's multi-property token: merged into one object at the leaf
            return ("members", tuple(names)), i + 1
        return ("member", names[0]), i + 1
    if stripped.startswith("?"):
        return _filter(text, pos)
    if close < 0:
        _fail(f"Could not parse token starting at position {pos}. Expected ?, ', 0-9, * ")
    if stripped == "*":
        return ("wild",), close + 1
    if _INDEXES.fullmatch(inner):
        ns = tuple(int(x) for x in inner.split(","))
        return (("index", ns[0]) if len(ns) == 1 else ("indexes", ns)), close + 1
    m = _SLICE.fullmatch(inner)
    if m:
        lo, hi = m.groups()
        return ("slice", None if lo is None else int(lo), None if hi is None else int(hi)), close + 1
    _fail(f"Could not parse token starting at position {pos}. Expected ?, ', 0-9, * ")


def _filter(text: str, pos: int) -> tuple[tuple, int]:
    """The ``[?(...)]`` at ``pos`` as Jayway's ``readFilterToken`` delimits it (:mod:`.json_filter`)."""
    q = text.index("?", pos)
    open_paren = q + 1
    while open_paren < len(text) and text[open_paren] == " ":
        open_paren += 1
    if open_paren >= len(text) or text[open_paren] != "(":
        _fail(f"Could not parse token starting at position {pos}. Expected ?, ', 0-9, * ")
    close_paren = _closing_paren(text, open_paren)
    end = close_paren + 1 if close_paren >= 0 else -1
    while 0 <= end < len(text) and text[end] == " ":
        end += 1
    if close_paren < 0 or end >= len(text) or text[end] != "]":
        _fail(f"Could not parse token starting at position {pos}. Expected ?, ', 0-9, * ")
    try:
        node = json_filter.compile_filter(text[pos:end + 1], _filter_path)
    except json_filter.FilterSyntaxError as e:
        _fail(str(e))
    return ("filter", node), end + 1


def _closing_paren(text: str, pos: int) -> int:
    """Jayway's ``indexOfClosingBracket`` (quoted strings and ``/regex/`` skipped): the index, or -1."""
    depth, i = 1, pos + 1
    while i < len(text):
        c = text[i]
        if c in "'\"/":
            j = i + 1
            while j < len(text) and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            if j >= len(text):
                return -1
            i = j + 1
            continue
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return -1


def _filter_path(text: str) -> tuple:
    """A path inside a filter (``@.a``, ``$.b``): its tokens and whether it is definite."""
    try:
        tokens = _tokens(text)
    except Unsupported as e:
        raise json_filter.FilterSyntaxError(str(e)) from None
    except JsonError as e:
        raise json_filter.FilterSyntaxError(str(e)) from None
    return tokens, _definite(tokens)


def _definite(tokens: tuple) -> bool:
    """Jayway's ``isDefinite``: member, index and function steps, several members at the leaf."""
    return all(t[0] in ("member", "index", "function") or (t[0] == "members" and n == len(tokens) - 1)
               for n, t in enumerate(tokens))


def _function(text: str, pos: int, paren: int) -> tuple[tuple, int]:
    """The function call at ``pos`` (its ``(`` at ``paren``): its token and the position after it.

    As Jayway's ``readPropertyOrFunctionToken``.
    """
    name = text[pos:paren]
    depth, i = 1, paren + 1
    while i < len(text) and depth:
        depth += {"(": 1, ")": -1}.get(text[i], 0)
        i += 1
    if depth:
        _fail(f"Arguments to function: '{name}' are not closed properly.")
    if paren + 1 < len(text) and text[paren + 1] != ")":
        params, after = _parameters(text, paren + 1, name)
        return ("function", name, params), after
    return ("function", name, ()), paren + 1  # Jayway stops on the ')': it is read as the next token


def _parameters(text: str, pos: int, name: str) -> tuple[tuple, int]:
    """Jayway's ``parseFunctionParameters`` from ``pos`` (after the ``(``): parameters and the end.

    A parameter is JSON (it starts with ``{``, a digit, ``"`` or ``-``) or a path (``$``, ``@``);
    other text (``'x'``) is dropped, as Jayway drops it.
    """
    params, buf, kind = [], [], None
    paren, bracket, brace, quote, prior = 1, 0, 0, 0, ""
    i = pos
    while i < len(text):
        c = text[i]
        i += 1
        if kind is None and c not in " \t\n\r":
            kind = "json" if c in '{"-' or c.isdigit() else "path" if c in "$@" else None
        if c == '"':
            quote = quote - 1 if prior != "\\" and quote > 0 else quote + 1
        elif c == "(":
            paren += 1
        elif c == "{":
            brace += 1
        elif c == "[":
            bracket += 1
        elif c in "}]":
            if (brace if c == "}" else bracket) == 0:
                what = "brace" if c == "}" else "bracket"
                _fail(f"Unexpected close {what} '{c}' at character position: {i}")
            brace, bracket = (brace - 1, bracket) if c == "}" else (brace, bracket - 1)
        if c in "),":
            if c == ")":
                paren -= 1
                if paren < 0 or prior == "(":
                    buf.append(c)
            if quote == 0 and brace == 0 and bracket == 0 and ((paren == 0 and c == ")") or paren == 1):
                if kind is not None:
                    params.append(_parameter(kind, "".join(buf)))
                    buf, kind = [], None
                if paren == 0:
                    prior = c
                    break
        if kind is not None and not (c == "," and brace == 0 and bracket == 0 and paren == 1):
            buf.append(c)
        prior = c
    if brace or paren or bracket:
        _fail(f"Arguments to function: '{name}' are not closed properly.")
    return tuple(params), i


def _parameter(kind: str, text: str) -> tuple:
    if kind == "path":
        tokens = _tokens(text)
        return ("path", tokens, _definite(tokens))
    return ("json", text)


def _tokens(text: str) -> tuple:
    """Jayway's ``PathCompiler`` over ``text`` (a path without its mode).

    Raises:
        JsonError: Jayway's ``InvalidPathException`` (its message).
        Unsupported: a filter, a function, several bracketed members, a scan not before a member.
    """
    text = text.strip()
    if not text:
        _fail("Path may not be null empty")
    if text[0] not in "$@":
        text = "$." + text  # Jayway reads "a.b" as "$.a.b"
    if text.endswith("."):
        _fail("Path must not end with a '.' or '..'")
    if len(text) > 1 and text[1] not in ".[ ":
        _fail("Illegal character at position 1 expected '.' or '['")
    tokens: list[tuple] = []
    pos = 1
    while pos < len(text):
        if tokens and pos == len(text) - 1 and text[pos] != ".":
            break  # Jayway's currentIsTail: a last character after a token is not read ("$.a[" is "$.a")
        c = text[pos]
        if c == "[":
            token, pos = _bracket(text, pos)
            tokens.append(token)
            continue
        if c == ".":
            if text.startswith("..", pos):
                tokens.append(("scan",))
                pos += 2
            else:
                pos += 1
            if pos < len(text) and text[pos] == ".":
                _fail(f"Character '.' on position {pos} is not valid.")
            if pos < len(text) and text[pos] == "[":
                continue
        if pos < len(text) and text[pos] == "*":
            tokens.append(("wild",))
            pos += 1
            continue
        end = pos
        while end < len(text) and text[end] not in ".[":
            if text[end] == " ":
                _fail("Use bracket notion ['my prop'] if your property contains blank characters. "
                               f"position: {end}")
            if text[end] == "(":
                break
            end += 1
        if end < len(text) and text[end] == "(":
            token, pos = _function(text, pos, end)
            tokens.append(token)
            continue
        if end == pos:
            _fail(f"Could not parse token starting at position {pos}")
        tokens.append(("member", text[pos:end]))
        pos = end
    if tokens and tokens[0][0] == "scan" and tokens[-1][0] == "function" and len(tokens) > 2:
        # Jayway's invertScannerFunctionRelationship: $..a.f() is $.f($..a)
        scanned = tuple(tokens[:-1])
        _check_scans(text, scanned)
        return (("function", tokens[-1][1], (("path", scanned, _definite(scanned)),)),)
    _check_scans(text, tokens)
    return tuple(tokens)


def _check_scans(text: str, tokens) -> None:
    """A scan is evaluated before a member or a filter (Jayway's other scan targets are not)."""
    for n, t in enumerate(tokens):
        if t[0] == "scan" and (n + 1 == len(tokens) or tokens[n + 1][0] not in ("member", "filter")):
            raise Unsupported(text)


@lru_cache(maxsize=4096)  # a path column holds few distinct paths: each compiled once
def compile_path(spec: str) -> CompiledPath:
    """Flink's split of the mode (``lax`` / ``strict``; none: strict), then Jayway's compilation.

    Raises:
        Unsupported: a path Jayway evaluates that is not evaluated here (see :func:`_tokens`).
    """
    m = _MODE.match(spec)
    # SqlJsonUtils: a path without a mode is strict
    mode, text = (m.group(1).upper(), m.group(2)) if m else ("STRICT", spec)
    try:
        tokens = _tokens(text)
    except FlinkJobFailure as e:  # raised when a document is read, as Flink compiles the path then
        return CompiledPath(mode, (), True, None, str(e))
    except JsonError:
        # SqlJsonUtils replaces Jayway's InvalidPathException with its own message (the spec as written)
        msg = ("Illegal jsonpath spec ''" + spec + "'', format of the spec should be: "
               "''<lax|strict> $'{'expr'}'''")
        return CompiledPath(mode, (), True, msg)
    return CompiledPath(mode, tokens, _definite(tokens))


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


def _scan(tokens: tuple, n: int, model, where: str, ctx: _Ctx, out: list) -> None:
    """Jayway's deep scan (``..member``, ``..[?(...)]``), pre-order.

    The next step's evaluation at every object that has the member (or that the filter accepts),
    and for a filter at every array it accepts, its next step on each element (Jayway's
    ``walkArray``).
    """
    token = tokens[n]
    if token[0] == "member":
        def matches(m) -> bool:
            return isinstance(m, dict) and token[1] in m
    else:
        read = _read_in_filter(ctx)

        def matches(m) -> bool:
            return json_filter.accept(token[1], m, ctx.root, read)
    if isinstance(model, dict):
        if matches(model):
            _walk(tokens, n, model, where, ctx, False, out)
        for k, v in model.items():
            if isinstance(v, (dict, list)):
                _scan(tokens, n, v, f"{where}['{k}']", ctx, out)
    elif isinstance(model, list):
        if token[0] == "filter" and matches(model):
            if n == len(tokens) - 1:
                _walk(tokens, n, model, where, ctx, False, out)
            else:
                for i, v in enumerate(model):
                    _walk(tokens, n + 1, v, f"{where}[{i}]", ctx, False, out)
        for i, v in enumerate(model):
            if isinstance(v, (dict, list)):
                _scan(tokens, n, v, f"{where}[{i}]", ctx, out)


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
