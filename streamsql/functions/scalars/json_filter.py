"""Jayway JsonPath's filters ``[?(...)]``, as Flink 2.3's JSON functions evaluate them.

Flink's ``SqlJsonUtils`` hands a path to Jayway JsonPath 2.9 (shaded in ``flink-table-runtime``);
a filter step keeps the array elements (or the object itself) its predicate accepts. Compiled as
Jayway's ``FilterCompiler`` reads it (:func:`compile_filter`):

- ``||`` over ``&&`` over operands: ``(...)``, ``!operand``, ``value [op value]``; a lone path is an
  existence test (``@.a``, ``!@.a``: the member is there, JSON null included);
- values: paths from the element (``@...``) or the document (``$...``), strings ``'x'`` / ``"x"``,
  numbers, ``true`` / ``false``, ``null``, JSON ``[...]`` / ``{...}`` (they fail Flink 2.3's job,
  below), patterns ``/re/flags``;
- operators ``==``, ``!=``, ``===``, ``!==``, ``<``, ``<=``, ``>``, ``>=``, ``=~`` and the words
  ``in``, ``nin``, ``subsetof``, ``anyof``, ``noneof``, ``all`` (over lists only, which fail Flink's
  job: over anything else never true), ``size`` / ``empty`` / ``contains`` (of strings; of a list
  the job fails), any case; ``type`` and ``matches`` take Java objects a text cannot write: never
  true.

Evaluated as Jayway's ``ValueNode`` evaluators (:func:`accept`): a number equals a number of the
same value (``1 == 1.0``) and a string holding it (``15 == '15'``); ``<`` and the like compare two
numbers or two strings (UTF-16 order), anything else is false; a path that finds nothing is
"undefined" in a strict path (equal to nothing) and JSON null in a lax one (Jayway's
``SUPPRESS_EXCEPTIONS`` reads it as null: ``@.x == null`` holds for a missing ``x`` in lax mode).
A path inside a filter is one of :mod:`.json_path`'s, evaluated by the caller's ``read``.

Flink 2.3 ships Jayway without json-smart, which Jayway's ``JsonNode`` and default configuration
need: a JSON literal fails its job when the path is compiled (a document that parses), an
existence test or a path's array or object value in a filter when evaluated
(:class:`.json_errors.FlinkJobFailure`), and so they do here.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from decimal import Decimal, InvalidOperation
from typing import NamedTuple

from streamsql.functions.scalars import java_pattern
from streamsql.functions.scalars.json_errors import FlinkJobFailure


class FilterSyntaxError(ValueError):
    """Jayway's ``InvalidPathException`` for a filter it does not compile (the message is Jayway's)."""


class Value(NamedTuple):
    """A Jayway ``ValueNode`` at evaluation.

    ``kind`` is ``num`` (Decimal), ``str``, ``bool``, ``null``, ``pattern`` (compiled), or
    ``undef`` (an array or object fails Flink's job: :func:`of`).
    """

    kind: str
    value: object = None


UNDEFINED = Value("undef")
_OPS = ("===", "!==", "==", "!=", "<=", ">=", "<", ">", "=~")
_WORDS = ("NIN", "IN", "CONTAINS", "ALL", "SIZE", "EXISTS", "TYPE", "MATCHES", "EMPTY", "SUBSETOF", "ANYOF",
          "NONEOF")
_REL_CHARS = "<>=~!"
_FLAGS = {"d": "d", "i": "i", "x": "x", "m": "m", "s": "s", "u": "u", "U": "U"}


def _closing(text: str, pos: int, open_c: str, close_c: str) -> int:
    """Jayway's ``indexOfMatchingCloseChar`` (quoted strings skipped): the index, or -1."""
    opened, i = 1, pos + 1
    while i < len(text):
        c = text[i]
        if c in "'\"":
            i = _unescaped(text, i, c)
            if i < 0:
                msg = f"Could not find matching close quote for {c} when parsing : {text}"
                raise FilterSyntaxError(msg)
            i += 1
            if i >= len(text):
                return -1
            c = text[i]
        if c == open_c:
            opened += 1
        elif c == close_c:
            opened -= 1
            if opened == 0:
                return i
        i += 1
    return -1


def _unescaped(text: str, start: int, c: str) -> int:
    """Jayway's ``nextIndexOfUnescaped``: the next ``c`` after ``start`` not after a backslash, or -1."""
    i, escaped = start + 1, False
    while i < len(text):
        if escaped:
            escaped = False
        elif text[i] == "\\":
            escaped = True
        elif text[i] == c:
            return i
        i += 1
    return -1


def _unescape(s: str) -> str:
    r"""Jayway's ``Utils.unescape`` of a string literal's body (Java's escapes, ``\uXXXX``)."""
    out, i = [], 0
    while i < len(s):
        c = s[i]
        if c == "\\" and i + 1 < len(s):
            n = s[i + 1]
            if n == "u" and re.fullmatch(r"[0-9a-fA-F]{4}", s[i + 2:i + 6]):
                out.append(chr(int(s[i + 2:i + 6], 16)))
                i += 6
                continue
            out.append({"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f"}.get(n, n))
            i += 2
            continue
        out.append(c)
        i += 1
    return "".join(out)


class _Reader:
    """Jayway's ``FilterCompiler`` over the text between ``[?(`` and ``)]``."""

    def __init__(self, text: str, compile_path: Callable[[str], tuple]):
        self.s, self.p, self.compile_path = text, 0, compile_path

    def blanks(self) -> str:
        while self.p < len(self.s) and self.s[self.p] == " ":
            self.p += 1
        return self.s[self.p] if self.p < len(self.s) else ""

    def sub(self, token: str) -> bool:
        self.blanks()
        if self.s.startswith(token, self.p):
            self.p += len(token)
            return True
        return False

    def read_or(self):
        ops = [self.read_and()]
        while True:
            save = self.p
            if self.sub("||"):
                ops.append(self.read_and())
            else:
                self.p = save
                return ops[0] if len(ops) == 1 else ("or", tuple(ops))

    def read_and(self):
        ops = [self.read_operand()]
        while True:
            save = self.p
            if self.sub("&&"):
                ops.append(self.read_operand())
            else:
                self.p = save
                return ops[0] if len(ops) == 1 else ("and", tuple(ops))

    def read_operand(self):
        save = self.p
        if self.blanks() == "!":
            self.p += 1
            if self.blanks() in ("$", "@"):
                self.p = save
            else:
                return ("not", self.read_operand())
        if self.blanks() == "(":
            self.p += 1
            op = self.read_or()
            if self.blanks() != ")":
                msg = "Expected character: )"
                raise FilterSyntaxError(msg)
            self.p += 1
            return op
        return self.read_expression()

    def read_expression(self):
        left = self.read_value()
        save = self.p
        try:
            op = self.read_operator()
            right = self.read_value()
            return ("rel", left, op, right)
        except FilterSyntaxError:
            self.p = save
        if left[0] != "path":
            msg = "Expected path node"
            raise FilterSyntaxError(msg)
        return ("exists", left, left[3])

    def read_operator(self) -> str:
        begin = self.p
        self.blanks()
        begin = self.p
        if self.p < len(self.s) and self.s[self.p] in _REL_CHARS:
            while self.p < len(self.s) and self.s[self.p] in _REL_CHARS:
                self.p += 1
        else:
            while self.p < len(self.s) and self.s[self.p] != " ":
                self.p += 1
        op = self.s[begin:self.p].upper()
        if op not in _OPS and op not in _WORDS:
            msg = f"Filter operator {self.s[begin:self.p]} is not supported!"
            raise FilterSyntaxError(msg)
        return op

    def read_value(self):
        c = self.blanks()
        if not c:
            msg = f"Failed to parse filter: {self.s}, error on position: {self.p}"
            raise FilterSyntaxError(msg)
        if c in ("$", "@"):
            return self.read_path(True)
        if c == "!":
            self.p += 1
            if self.blanks() in ("$", "@"):
                return self.read_path(False)
            msg = "Unexpected character: !"
            raise FilterSyntaxError(msg)
        return self.read_literal(c)

    def read_path(self, should_exist: bool):
        begin = self.p
        self.p += 1
        while self.p < len(self.s):
            if self.s[self.p] == "[":
                close = _closing(self.s, self.p, "[", "]")
                if close < 0:
                    msg = f"Square brackets does not match in filter {self.s}"
                    raise FilterSyntaxError(msg)
                self.p = close + 1
                if self.p >= len(self.s):
                    break
            c = self.s[self.p]
            closing_function = c == ")" and self._closes_function(begin)
            if c in _REL_CHARS or c == " " or (c == ")" and not closing_function):
                break
            self.p += 1
        text = self.s[begin:self.p]
        return ("path", self.compile_path(text), text[0] == "$", should_exist)

    def _closes_function(self, lower: int) -> bool:
        i = self.p - 1
        while i > lower and self.s[i] == " ":
            i -= 1
        return self.s[i] == "("

    def read_literal(self, c: str):
        if c in "'\"":
            end = _unescaped(self.s, self.p, c)
            if end < 0:
                msg = f"String literal does not have matching quotes. Expected {c} in {self.s}"
                raise FilterSyntaxError(msg)
            body = self.s[self.p + 1:end]
            self.p = end + 1
            return ("lit", Value("str", _unescape(body)))
        if c in "tf":
            word = "true" if c == "t" else "false"
            if not self.s.startswith(word, self.p):
                msg = "Expected boolean literal"
                raise FilterSyntaxError(msg)
            self.p += len(word)
            return ("lit", Value("bool", word == "true"))
        if c == "n":
            if not self.s.startswith("null", self.p):
                msg = "Expected <null> value"
                raise FilterSyntaxError(msg)
            self.p += 4
            return ("lit", Value("null"))
        if c in "[{":
            close = _closing(self.s, self.p, c, "]" if c == "[" else "}")
            if close < 0:
                msg = f"String not closed. Expected ' in {self.s}"
                raise FilterSyntaxError(msg)
            _json_smart("a JSON literal ([...] or {...})")  # Jayway's JsonNode class does not load
        if c == "/":
            return self.read_pattern()
        begin = self.p
        while self.p < len(self.s) and (self.s[self.p].isdigit() or self.s[self.p] in "-.Ee"):
            self.p += 1
        try:
            return ("lit", Value("num", Decimal(self.s[begin:self.p])))
        except InvalidOperation:
            msg = f"Failed to parse filter: {self.s}, error on position: {self.p}"
            raise FilterSyntaxError(msg) from None

    def read_pattern(self):
        close = _unescaped(self.s, self.p, "/")
        if close < 0:
            msg = f"Pattern not closed. Expected / in {self.s}"
            raise FilterSyntaxError(msg)
        end = close + 1
        while end < len(self.s) and self.s[end] in _FLAGS:
            end += 1
        body, flags = self.s[self.p + 1:close], self.s[close + 1:end]
        self.p = end
        inline = "".join(sorted({_FLAGS[f] for f in flags}))
        pattern = java_pattern_compiled((f"(?{inline})" if inline else "") + body)
        return ("lit", Value("pattern", pattern))


def java_pattern_compiled(pattern: str):
    """``pattern`` compiled with Java's meaning (as Jayway's ``Pattern.compile``).

    Raises:
        FilterSyntaxError: a pattern Java refuses, or one whose Java meaning is not written here.
    """
    import regex  # noqa: PLC0415  (the regex module: Java's syntax needs it)

    try:
        return regex.compile(java_pattern.translate(pattern), regex.V1)
    except (java_pattern.JavaRefuses, java_pattern.NotTranslatable, regex.error) as e:
        msg = f"Failed to parse filter pattern /{pattern}/: {e}"
        raise FilterSyntaxError(msg) from None


def compile_filter(text: str, compile_path: Callable[[str], tuple]):
    """The predicate of ``[?(...)]`` (``text`` is the whole bracket), as Jayway's ``FilterCompiler``.

    ``compile_path`` compiles a path inside the filter (``@.a``, ``$.b[0]``) to its tokens.

    Raises:
        FilterSyntaxError: Jayway's ``InvalidPathException`` for a filter it does not compile.
    """
    inner = text.strip()
    if not (inner.startswith("[") and inner.endswith("]")):
        raise FilterSyntaxError("Filter must start with '[' and end with ']'. " + text)
    inner = inner[1:-1].strip()
    if not inner.startswith("?"):
        raise FilterSyntaxError("Filter must start with '[?' and end with ']'. " + text)
    inner = inner[1:].strip()
    if not (inner.startswith("(") and inner.endswith(")")):
        raise FilterSyntaxError("Filter must start with '[?(' and end with ')]'. " + text)
    r = _Reader(inner[1:-1], compile_path)
    try:
        node = r.read_or()
    except (IndexError, ValueError) as e:
        if isinstance(e, FilterSyntaxError):
            raise
        msg = f"Failed to parse filter: {inner}, error on position: {r.p}"
        raise FilterSyntaxError(msg) from None
    r.blanks()
    if r.p < len(r.s):
        msg = f"Expected end of filter expression instead of: {r.s[r.p:]}"
        raise FilterSyntaxError(msg)
    return node


#: ``read(tokens, start, root, exists) -> Value``: a filter's path evaluated from ``start`` (the
#: element, or the document for ``$``); ``exists``: Jayway's existence check (``REQUIRE_PROPERTIES``).
Reader = Callable[[tuple, object, object, bool], Value]


def accept(node, item, root, read: Reader) -> bool:
    """Whether the filter ``node`` accepts ``item`` (Jayway's ``Predicate.apply``).

    An ``InvalidPathException`` inside it, a value of the wrong kind, is false as Jayway's ``accept``).
    """
    try:
        return _apply(node, item, root, read)
    except _NotApplicable:
        return False


class _NotApplicable(Exception):
    """Jayway's ``InvalidPathException`` from ``asXxxNode`` (an operand of the wrong kind)."""


def _apply(node, item, root, read: Reader) -> bool:
    kind = node[0]
    if kind == "or":
        return any(_apply(n, item, root, read) for n in node[1])
    if kind == "and":
        return all(_apply(n, item, root, read) for n in node[1])
    if kind == "not":
        return not _apply(node[1], item, root, read)
    if kind == "exists":
        _, path, should = node
        _json_smart("an existence test (@.member)")
        found = read(path[1], root if path[2] else item, root, True)
        return (found.kind == "bool" and found.value) == should
    _, left, op, right = node
    return _relation(_value(left, item, root, read), op, _value(right, item, root, read))


def _json_smart(what: str) -> None:
    """Fail as Flink 2.3's job fails where Jayway reaches for json-smart (:class:`FlinkJobFailure`)."""
    msg = (f"a JSON path filter with {what} fails Flink 2.3's job (NoClassDefFoundError: "
           "net/minidev/json/writer/JsonReaderI: its shaded Jayway JsonPath lacks json-smart)")
    raise FlinkJobFailure(msg)


def _value(node, item, root, read: Reader) -> Value:
    if node[0] == "lit":
        return node[1]
    return read(node[1], root if node[2] else item, root, False)


def of(res) -> Value:
    """Jayway's ``PathNode.evaluate`` conversion of a found value to a ``ValueNode``."""
    if res is None:
        return Value("null")
    if isinstance(res, bool):
        return Value("bool", res)
    if isinstance(res, (int, Decimal, float)):
        return Value("num", Decimal(repr(res)) if isinstance(res, float) else Decimal(res))
    if isinstance(res, str):
        return Value("str", res)
    _json_smart("an array or object value (Jayway's JsonNode)")
    return UNDEFINED  # not reached


_JAVA_DECIMAL = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")


def _number_of(v: Value) -> Decimal | None:
    """``asNumberNode`` of a number or a string: Java's ``new BigDecimal(text)``.

    None: Jayway's NaN node, equal to nothing.
    """
    if v.kind == "num":
        return v.value
    return Decimal(v.value) if _JAVA_DECIMAL.fullmatch(v.value) else None


def _number_text(d: Decimal) -> str:
    """Java's ``BigDecimal.toString`` of ``d`` (``asStringNode`` of a number)."""
    return str(d)


def equal(a: Value, b: Value) -> bool:
    """Jayway's ``ValueNode.equals`` (``a.equals(b)``), as ``==`` uses it."""
    if a.kind == "num":
        if b.kind not in ("num", "str"):
            return False
        other = _number_of(b)
        return other is not None and a.value.compare(other) == 0
    if a.kind == "str":
        if b.kind == "str":
            return a.value == b.value
        return b.kind == "num" and a.value == _number_text(b.value)
    if a.kind in ("bool", "null"):
        return b.kind == a.kind and a.value == b.value
    if a.kind == "pattern":
        return b.kind == "pattern" and a.value.pattern == b.value.pattern
    return False


def _utf16(s: str) -> bytes:
    return s.encode("utf-16-be", "surrogatepass")


def _compare(a: Value, b: Value) -> int | None:
    if a.kind == "num" and b.kind == "num":
        return (a.value > b.value) - (a.value < b.value)
    if a.kind == "str" and b.kind == "str":
        x, y = _utf16(a.value), _utf16(b.value)
        return (x > y) - (x < y)
    return None


def _text_of(v: Value) -> str:
    """``RegexpEvaluator.getInput``: a string, a number's text, a boolean's; else empty."""
    if v.kind == "str":
        return v.value
    if v.kind == "num":
        return _number_text(v.value)
    if v.kind == "bool":
        return "true" if v.value else "false"
    return ""


def _relation(left: Value, op: str, right: Value) -> bool:  # noqa: PLR0911  (Jayway's table)
    """Jayway's ``EvaluatorFactory`` evaluator of ``op`` over the two values.

    An array or object never gets here (it fails Flink's job first, :func:`of`), so the list
    operators (``in``, ``nin``, ``subsetof``, ``anyof``, ``noneof``, ``all``) meet no list: Jayway's
    ``asValueListNode`` raises, and the element is not accepted.
    """
    if op in ("==", "!=", "===", "!=="):
        same = equal(left, right) and (op in ("==", "!=") or left.kind == right.kind)
        return same == (op in ("==", "==="))
    if op in ("<", "<=", ">", ">="):
        c = _compare(left, right)
        return c is not None and {"<": c < 0, "<=": c <= 0, ">": c > 0, ">=": c >= 0}[op]
    if op == "=~":
        if (left.kind == "pattern") == (right.kind == "pattern"):
            return False
        pattern, other = (left, right) if left.kind == "pattern" else (right, left)
        return pattern.value.fullmatch(_text_of(other)) is not None
    if op == "SIZE":  # a string's length in UTF-16 units
        return right.kind == "num" and left.kind == "str" and len(_utf16(left.value)) // 2 == int(right.value)
    if op == "EMPTY":
        if right.kind != "bool":
            raise _NotApplicable
        return left.kind == "str" and (left.value == "") == right.value
    if op == "CONTAINS":
        return left.kind == "str" and right.kind == "str" and right.value in left.value
    return False  # the list operators (above); TYPE and MATCHES take Java objects a text cannot write
