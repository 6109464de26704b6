r"""The REGEXP family over a pattern that is not a literal: Java's rules, row by row, in Python.

A literal pattern is checked while planning and runs on DuckDB (``text.py``, ``string.py``). A
pattern from a column can be anything, so each row's is compiled here (cached), as Flink 2.3's
functions do with ``java.util.regex`` (read from their bytecode, ``SqlFunctionUtils`` and
``Regexp*Function``), with their answers for a pattern Java refuses (difffuzz regressions
``... CASE WHEN id = 2 THEN '(' ELSE u END``): REGEXP is false, the others NULL.

Java's syntax is written for the ``regex`` module (version 1 behaviour) by :mod:`.java_pattern`,
once per distinct pattern: possessive quantifiers, atomic groups, look-around, ``\p{..}``
properties (``\p{javaLowerCase}``, ``\p{InGreek}`` ...), ``\Q..\E``, inline flags mid-pattern
(``a(?i)b``, ASCII-only case folding without ``(?u)``), nested classes and ``&&``, and Java's
``.``, ``^``, ``$``, ``\b``, ``\w``, ``\s``, ``\R``, ``\Z`` ... (Flink 2.3's answers:
``tests/functions/flink_regex_java.json``). The few constructs it does not write (``(?U)``, a
back-reference under ASCII-only ``(?i)``, ``\p{javaJavaIdentifierStart}`` and kin) fail the job
with a message rather than answering otherwise.

Matches are found as Java's ``Matcher.find`` loop finds them, over UTF-16 code units: after an
empty match the next search starts one code unit on, which can be between the halves of a
character outside the BMP (:func:`java_finds`); positions are UTF-16 indexes.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache

import duckdb
import pyarrow as pa
import regex
from sqlglot import exp

from streamsql.functions.python_functions import VectorFunction, planning_connection, register, rowwise
from streamsql.functions.scalars import java_pattern, java_properties
from streamsql.functions.scalars.registry import Arg, Call, sql_string, template
from streamsql.functions.scalars.utf16 import java_text

# ... that DuckDB's RE2 reads otherwise, or refuses only at run time (a literal pattern: check_literal)
_RE2_OTHERWISE = set("vZ")


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
def compile_java(pattern: str) -> regex.Pattern | None:
    """``pattern`` compiled with Java's meaning; None when Java refuses it (PatternSyntaxException).

    Written for the ``regex`` module by :func:`.java_pattern.translate`, once per distinct pattern.

    Raises:
        UnsupportedPattern: Java syntax whose meaning the translation does not write.
    """
    try:
        text = java_pattern.translate(pattern)
    except java_pattern.JavaRefuses:
        return None
    except java_pattern.NotTranslatable as e:
        raise UnsupportedPattern(_unsupported(pattern, str(e))) from None
    try:
        return regex.compile(text, regex.V1)
    except (regex.error, OverflowError, RecursionError):
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


@lru_cache(maxsize=1024)
def _re2_reads_as_java(pattern: str) -> bool:
    """Whether RE2 runs literal ``pattern`` as :func:`check_literal` writes it (checked while planning)."""
    if _java_only(pattern, _RE2_OTHERWISE, hex_braces=False) is not None:
        return False
    pieces = [m.groups() for m in _PIECES.finditer(pattern)]
    if any(escaped == "0" for escaped, _, _ in pieces):  # Java's octal \0101; RE2: NUL, then 101
        return False
    if not pattern.isascii() and any(flags and "i" in flags for _, flags, _ in pieces):
        return False  # Java folds the ASCII letters only: the pattern's own others never
    try:
        re2, stand_in = java_properties.translate(pattern)
        re.compile(stand_in)
        planning_connection().execute("SELECT regexp_matches('', ?)", [re2]).fetchall()
    except (java_properties.PropertyError, re.error, duckdb.Error):
        return False
    return True


def on_java(c: Call, index: int = 1) -> bool:
    r"""Whether the call's pattern (argument ``index``) runs on Java's engine, row by row.

    A pattern that is not a literal does; so does a literal one RE2 cannot run as Java reads it
    (look-around, back-references, possessive quantifiers, nested classes, ``\\v``, ``\\Z``,
    ``(?i)`` mid-pattern ...), and one Java refuses (answered as Flink answers it, REGEXP false,
    the others NULL): the one mechanism for both. Only Java syntax the translation does not write
    is still refused at the call.
    """
    arg = c.args[index]
    if not arg.is_literal:
        return True
    pattern = arg.value()
    if not isinstance(pattern, str) or arg.sql.meta.get(_TRANSLATED) is not None:
        return False
    if _re2_reads_as_java(pattern):
        return False
    try:  # Java's engine answers a pattern Java refuses as Flink does (REGEXP false, the others NULL)
        compile_java(pattern)
    except UnsupportedPattern:
        return False  # refused at the call by check_literal, in its words
    return True


# An escape, a class, an inline flag group (its flags: group 1), or "." / "$" (group 2), outside classes
_PIECES = re.compile(r"\\(.)|\[(?:\\.|[^\]\\])*\]|\(\?([a-zA-Z-]*)[:)]|([.$])", re.DOTALL)
_TERMINATORS = "\\r\\n\\x{85}\\x{2028}\\x{2029}"


def _rows_for_java(pattern: str) -> str | None:
    r"""The RE2 class of the characters in a string that make RE2 answer a literal pattern otherwise.

    Where RE2 reads ``pattern`` as Java does for most strings but not all (None: for all): Java's
    ``.`` and ``$`` (and ``^`` / ``$`` under ``(?m)``) know ``\r``, U+0085, U+2028 and U+2029 as
    line terminators, RE2's only ``\n`` (and its ``$`` no final one); Java's ``\s`` takes U+000B;
    Java 17's ``\b`` takes any letter or digit for a word character and its ``(?i)`` folds ASCII
    only, RE2's are ASCII and Unicode.
    """
    chars, wide = "", False
    for m in _PIECES.finditer(pattern):
        escaped, flags, meta = m.groups()
        if meta or (flags and set(flags) & set("smd")):
            chars += _TERMINATORS
        if (flags and "i" in flags) or escaped in ("b", "B"):
            wide = True
        if escaped in ("s", "S"):
            chars += "\\x0B"
    if not chars and not wide:
        return None
    return f"[{chars}\\x{{80}}-\\x{{10FFFF}}]" if wide else f"[{chars}]"


def needs_guard(c: Call) -> bool:
    """Whether :func:`guard` sends some rows of the call (a literal pattern) to Java's engine."""
    pattern = c.args[1].value() if c.args[1].is_literal else None
    return isinstance(pattern, str) and _rows_for_java(pattern) is not None


def guard(c: Call, re2: exp.Expression, dynamic) -> exp.Expression:
    """``re2`` (a literal pattern's RE2 form of the call), with the rows RE2 reads otherwise on Java's.

    The rows holding a character of :func:`_rows_for_java`'s class go through ``dynamic(c)``
    (Java's engine, row by row); the others, most, stay on RE2.
    """
    if not needs_guard(c) or isinstance(re2, exp.Null):
        return re2
    chars = _rows_for_java(c.args[1].value())
    test = sql_string(chars).replace("{", "{{").replace("}", "}}")
    return template(f"CASE WHEN regexp_matches({{0}}, {test}) THEN {{1}} ELSE {{2}} END", c.args[0],
                    dynamic(c).sql(dialect="duckdb"), re2.sql(dialect="duckdb"))


MECHANISM = ("One mechanism per distinct pattern: a literal pattern RE2 reads as Java runs on RE2 (the "
             "rows where Java's line terminators, \\s, \\b or ASCII-only (?i) would answer otherwise on "
             "Java's engine); any other pattern, a column's or a literal with Java-only syntax (look-around, "
             "back-references, possessive quantifiers, atomic groups, \\p{java..}, \\Q..\\E, (?i) "
             "mid-pattern, nested classes ...), is written for the regex module with Java's meaning. A "
             "pattern Java refuses gives NULL (REGEXP false), as Flink, a literal one too. (?U), a "
             "back-reference under ASCII-only (?i) and \\p{javaJavaIdentifier..} fail the job.")
"""The REGEXP family's "differences from Flink" (docs/functions.md)."""


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
