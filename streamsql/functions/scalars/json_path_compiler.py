"""Jayway JsonPath's ``PathCompiler`` as Flink 2.3's JSON functions use it: a path text to tokens.

Flink's ``SqlJsonUtils`` splits the mode off (``lax`` / ``strict``; a path without one is
**strict**) and compiles the rest with Jayway 2.9 (:func:`compile_path`, once per distinct text).
Member and index steps (``$``, ``.name``, ``['name']``, ``[n]``, ``[-n]``) and functions
(``.length()``) make a definite path, whose value is the one thing found; wildcards (``*``,
``[*]``), several indexes (``[0,1]``), slices (``[0:2]``), filters (``[?(...)]``,
:mod:`.json_filter`), the deep scan ``..name`` and several bracketed members (``['a','b']``, but
at the leaf, where they merge into one object) an indefinite one, whose value is the list of
matches. A path Jayway does not compile (``$.``, ``$a``, ``$."a b"``) is an error of every row; a
name is read up to the next ``.`` or ``[`` (``$.'x'`` is the member ``'x'``, quotes included);
``$..a.f()`` is ``$.f($..a)``, as Jayway's ``invertScannerFunctionRelationship``. Evaluated by
:mod:`.json_path`.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import NamedTuple, NoReturn

from streamsql.functions.scalars import json_filter
from streamsql.functions.scalars.json_errors import FlinkJobFailure, JsonError

_MODE = re.compile(r"^\s*(strict|lax)\s+(.+)$", re.IGNORECASE | re.DOTALL)
_INDEXES = re.compile(r"\s*-?\d+\s*(?:,\s*-?\d+\s*)*")
_SLICE = re.compile(r"\s*(-?\d+)?\s*:\s*(-?\d+)?\s*")


class Unsupported(ValueError):
    """A path whose answer in Flink 2.3 depends on the rows evaluated before it: not evaluated here.

    Jayway keeps state in a compiled path, which Flink's calls share (Jayway's path cache): a last
    member after a scanned wildcard (``$..*.b``) and ``length()`` / ``size()`` after a scan
    (``$..a.length()``, whose ``Length`` appends a wildcard to the path at each call).
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
        Unsupported: a path whose answer in Flink depends on the rows before (:class:`Unsupported`).
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
    _check_scans(text, tokens)
    if tokens and tokens[0][0] == "scan" and tokens[-1][0] == "function":
        # Jayway's invertScannerFunctionRelationship: $..a.f() is $.f($..a) ($..f(): $.f($..))
        if tokens[-1][1] in ("length", "size"):
            raise Unsupported(text)  # its Length appends a wildcard to the cached path at each call
        scanned = tuple(tokens[:-1])
        return (("function", tokens[-1][1], (("path", scanned, _definite(scanned)),)),)
    return tuple(tokens)


def _check_scans(text: str, tokens: list) -> None:
    """Refuse a scan whose answer in Flink 2.3 depends on the rows evaluated before (Jayway's state).

    A last single member right after a scanned wildcard (``$..*.b``, ``$..[*].b``) is kept or not by
    the upstream array index the member's token kept from its last evaluation, on any row, of the
    same (cached) path: Flink answers ``[]`` once some array was walked, else the members.
    """
    for n in range(len(tokens) - 2):
        if tokens[n][0] == "scan" and tokens[n + 1][0] == "wild" and tokens[n + 2][0] == "member" \
                and n + 3 == len(tokens):
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
