r"""The REGEXP family over a pattern that is not a literal: Java's rules, row by row, in Python.

A literal pattern is checked while planning and runs on DuckDB (``text.py``, ``string.py``). A
pattern from a column can be anything, so each row's is compiled here (cached), as Flink 2.3's
functions do with ``java.util.regex`` (read from their bytecode, ``SqlFunctionUtils`` and
``Regexp*Function``), with their answers for a pattern Java refuses (difffuzz regressions
``... CASE WHEN id = 2 THEN '(' ELSE u END``): REGEXP is false, the others NULL.

Java's syntax is read by Python's engine with ``re.ASCII`` (Java's ``\w \d \s \b`` and case
folding are ASCII by default) after two spellings are translated: ``(?<name>...)`` and
``\k<name>``. Syntax that Java reads and Python does not, or reads otherwise (``\p{L}``,
``\Q...\E``, ``\h``, ``\R``, ``\z``, ``\v``, nested character classes and ``&&`` ...), fails the
job with a message rather than being taken for an invalid pattern. Java's ``.`` does not match
``\r``, U+0085, U+2028 or U+2029 either; Python's does.

Matches are found as Java's ``Matcher.find`` loop finds them, over UTF-16 code units: after an
empty match the next search starts one code unit on, which can be between the halves of a
character outside the BMP (:func:`java_finds`); positions are UTF-16 indexes.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Iterator
from functools import lru_cache

import duckdb
import pyarrow as pa
from sqlglot import exp

from streamsql.functions.python_functions import VectorFunction, planning_connection, register, rowwise
from streamsql.functions.scalars import java_properties
from streamsql.functions.scalars.registry import Arg, Call, template
from streamsql.functions.scalars.utf16 import java_text

# Escapes Java reads that Python refuses or reads otherwise (after a backslash)
_JAVA_ONLY = set("pPQEhHRXGzZvecN")
# ... that DuckDB's RE2 reads otherwise, or refuses only at run time (a literal pattern: check_literal)
_RE2_OTHERWISE = set("vZ")
_NAMED = re.compile(r"\(\?<(?![=!])")
_BACKREF = re.compile(r"\\k<([A-Za-z][A-Za-z0-9]*)>")


class UnsupportedPattern(ValueError):  # noqa: N818  (a job failure's cause, in the user's terms)
    """A pattern in Java syntax that this engine cannot run as Java would."""


def _java_only(pattern: str, escapes: set[str], hex_braces: bool) -> str | None:
    r"""The first piece of ``pattern`` that Java reads otherwise than the other engine; None if none.

    ``escapes``: the letters after a backslash the other engine refuses or reads otherwise;
    ``hex_braces``: whether ``\x{..}`` is one of them. A ``[`` or ``&&`` inside a character class
    is a union or intersection in Java and a literal character in Python and RE2, always.
    """
    i, in_class = 0, False
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\" and i + 1 < len(pattern):
            if pattern[i + 1] in escapes or (hex_braces and pattern.startswith("x{", i + 1)):
                return pattern[i:i + 2]
            i += 2
            continue
        if in_class and (ch == "[" or pattern.startswith("&&", i)):
            return "a nested character class or set operation"
        if not in_class and ch == "[":
            in_class = True
            i += 2 if pattern.startswith("[^", i) else 1
            if pattern.startswith("]", i):  # a ']' first in the class is a literal one
                i += 1
            continue
        if in_class and ch == "]":
            in_class = False
        i += 1
    return None


@lru_cache(maxsize=4096)
def compile_java(pattern: str) -> re.Pattern | None:
    """``pattern`` compiled with Java's meaning; None when Java refuses it (PatternSyntaxException).

    Raises:
        UnsupportedPattern: Java syntax Python's engine does not read the same way.
    """
    what = _java_only(pattern, _JAVA_ONLY, hex_braces=True)
    if what is not None:
        raise UnsupportedPattern(_unsupported(pattern, what))
    text = _BACKREF.sub(r"(?P=\1)", _NAMED.sub("(?P<", pattern))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", FutureWarning)  # nested sets and set operations
            return re.compile(text, re.ASCII)
    except FutureWarning:
        raise UnsupportedPattern(_unsupported(pattern, "a nested character class or set operation")) from None
    except (re.error, OverflowError, RecursionError):
        return None


def check_literal(c: Call, pattern: str, index: int = 1) -> re.Pattern:
    r"""A literal pattern that will run on DuckDB's RE2, checked while planning; compiled by Python.

    RE2 reads a ``[`` or ``&&`` inside a class, ``\v`` (Java: any vertical white space) and ``\Z``
    (Java: the end before a final line terminator; RE2 refuses it at run time) otherwise than Java,
    without an error: refused here rather than answered otherwise than Flink. Java's character
    properties (``\p{L}``, ``\p{IsLatin}``, ``\p{Alpha}`` ...) are written for RE2
    (:mod:`.java_properties`): argument ``index`` (the pattern) of ``c`` is replaced by that
    pattern, so the call's SQL carries it; Python compiles a stand-in (its groups are the same).

    Raises:
        FunctionError: the pattern does not compile, or uses such syntax.
    """
    arg = c.args[index]
    stand_in = arg.sql.meta.get(_TRANSLATED)
    if stand_in is not None:  # written for RE2 by an earlier check of this call
        return re.compile(stand_in)
    what = _java_only(pattern, _RE2_OTHERWISE, hex_braces=False)
    if what is not None:
        msg = (f"{c.name}: the regular expression {pattern!r} uses Java syntax that this engine reads "
               f"otherwise ({what}); write it without (e.g. [ab] for [a[b]])")
        raise c.fail(msg)
    try:
        re2, stand_in = java_properties.translate(pattern)
    except java_properties.PropertyError as e:
        msg = (f"{c.name}: the regular expression {pattern!r} uses a character property that this engine "
               f"cannot read as Java does: {e}")
        raise c.fail(msg) from None
    try:
        compiled = re.compile(stand_in)
    except re.error as e:
        msg = f"{c.name}: invalid regular expression {pattern!r}: {e}"
        raise c.fail(msg) from None
    if re2 != pattern:
        try:
            planning_connection().execute("SELECT regexp_matches('', ?)", [re2]).fetchall()
        except duckdb.Error:
            msg = (f"{c.name}: the regular expression {pattern!r} uses a character property that this "
                   "engine does not know (RE2 has no such script)")
            raise c.fail(msg) from None
        literal = exp.Literal.string(re2)
        literal.meta[_TRANSLATED] = stand_in
        c.args[index] = Arg(literal, arg.type)
    return compiled


_TRANSLATED = "java_properties"
"""Meta key of a pattern literal written for RE2 by :func:`check_literal`: Python's stand-in."""


def runs_as_java(pattern: str) -> bool:
    """Whether a literal ``pattern`` compiles here with Java's meaning (checked while planning)."""
    try:
        return compile_java(pattern) is not None
    except UnsupportedPattern:
        return False


def _unsupported(pattern: str, what: str) -> str:
    return (f"the regular expression {pattern!r} (not a literal) uses Java syntax that is not supported "
            f"here ({what}); write it without, or as a literal")


def _code_units(s: str) -> str:
    """``s`` with each character outside the BMP as its two UTF-16 surrogates (Java's ``char``s)."""
    return "".join(c if c < "\U00010000" else chr(0xD7C0 + (ord(c) >> 10)) + chr(0xDC00 + (ord(c) & 0x3FF))
                   for c in s)


def java_finds(rx: re.Pattern, s: str) -> Iterator[tuple[int, int, re.Match]]:
    """Each match of ``Matcher.find`` in a loop: (start, end) in UTF-16 code units, and the match.

    Searches run on the characters; after an empty match that ends before the second half of a
    character outside the BMP, Java tries there first (on the code units), as
    ``string._java_replace_all`` does.
    """
    units = _code_units(s)
    start_of = [0]
    for c in s:
        start_of.append(start_of[-1] + (2 if c >= "\U00010000" else 1))
    char_at = {u: n for n, u in enumerate(start_of)}
    at = 0
    while at <= len(units):
        if at in char_at:
            m = rx.search(s, char_at[at])
            found = (start_of[m.start()], start_of[m.end()]) if m else None
        else:
            m = rx.match(units, at)
            found = (at, m.end()) if m else None
            if found is None:
                m = rx.search(s, char_at[at + 1])
                found = (start_of[m.start()], start_of[m.end()]) if m else None
        if found is None:
            return
        yield found[0], found[1], m
        at = found[1] + (found[0] == found[1])


def _group(m: re.Match, g: int) -> str | None:
    """Group ``g`` of ``m`` as Flink writes it (a half character as '?'); None if it did not take part."""
    text = m.group(g)
    return None if text is None else java_text(text.encode("utf-16-le", "surrogatepass"))


def regexp(s: str, pattern: str) -> bool:
    """Flink's ``SqlFunctionUtils.regExp``: false for an empty or invalid pattern."""
    rx = compile_java(pattern) if pattern else None
    return rx is not None and rx.search(s) is not None


def regexp_count(s: str, pattern: str) -> int | None:
    """``RegexpCountFunction``: the number of ``find`` matches; NULL for an invalid pattern."""
    rx = compile_java(pattern)
    return None if rx is None else sum(1 for _ in java_finds(rx, s))


def regexp_instr(s: str, pattern: str) -> int | None:
    """``RegexpInstrFunction``: the first match's UTF-16 index + 1, 0 without one, NULL if invalid."""
    rx = compile_java(pattern)
    if rx is None:
        return None
    return next((start + 1 for start, _, _ in java_finds(rx, s)), 0)


def regexp_extract(s: str, pattern: str, group: int) -> str | None:
    """``SqlFunctionUtils.regexpExtract``: the first match's group; NULL if none, invalid or absent."""
    rx = compile_java(pattern)
    if rx is None or not 0 <= group <= rx.groups:
        return None
    m = next(java_finds(rx, s), None)
    return None if m is None else _group(m[2], group)


def regexp_extract_all(s: str, pattern: str, group: int) -> list[str | None] | None:
    """``RegexpExtractAllFunction``: the group of every match; NULL if invalid or absent."""
    rx = compile_java(pattern)
    if rx is None or not 0 <= group <= rx.groups:
        return None
    return [_group(m, group) for _, _, m in java_finds(rx, s)]


def regexp_replace(s: str, pattern: str, replacement: str) -> str | None:
    """``SqlFunctionUtils.regexpReplace``: ``replaceAll`` with the replacement taken literally."""
    rx = compile_java(pattern)
    if rx is None:
        return None
    units, out, done = _code_units(s), [], 0
    for start, end, _ in java_finds(rx, s):
        out += [units[done:start], replacement]
        done = end
    out.append(units[done:])
    return java_text("".join(out).encode("utf-16-le", "surrogatepass"))


def dynamic_call(label: str, fn, out: pa.DataType, params: tuple[str, ...], returns: str):
    """A ``build`` calling ``fn`` row by row (NULL for a row with a NULL argument) from DuckDB.

    Registered under its own DuckDB name (``__streamsql_java_<label>``), apart from the label's
    literal-pattern helpers; errors name ``label``.
    """
    f = register(VectorFunction(f"__streamsql_java_{label.lower()}_{len(params)}", f"Function {label}",
                                lambda *a: rowwise(fn, a, out), params, returns, True))

    def build(c: Call) -> exp.Expression:
        casts = ", ".join(f"CAST({{{i}}} AS {t})" for i, t in enumerate(params))
        return template(f"{f.name}({casts})", *c.args)

    return build
