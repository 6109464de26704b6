"""String functions (Flink's "String Functions"), as DuckDB expressions.

Positions are 1-based and count characters (not bytes), as in Flink. Where DuckDB's function of
the same name differs, the template says why. LPAD, RPAD and OVERLAY, which count Java's UTF-16
code units, are in :mod:`.utf16`.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import pyarrow as pa
from sqlglot import exp

from streamsql.core.types import SqlType
from streamsql.functions.python_functions import rowwise
from streamsql.functions.scalars import java_regex
from streamsql.functions.scalars.cast_string import utf8_text
from streamsql.functions.scalars.java_regex import dynamic_call
from streamsql.functions.scalars.regex_shape import group_never_empty, min_width
from streamsql.functions.scalars.registry import (
    Arg,
    Call,
    Failure,
    bind,
    duckdb_call,
    fail_sql,
    fixed,
    python_call,
    scalar,
    template,
    volatile,
)
from streamsql.functions.scalars.utf16 import JAVA_MAX_STRING
from streamsql.functions.scalars.utf16 import java_text as _text

S, INTEGER = "STRING", "INTEGER"
STRING = fixed("STRING")
INT = fixed("INT")


_CASE_DIFFERENCES = ("Flink truncates the result of a CHAR(n) literal to n characters (UPPER('straße') → "
                     "'STRASS', LOWER('İ') → 'i'); StreamSQL does not. Characters added in Unicode 14 (the "
                     "Vithkuqi script, U+2C2F, U+A7C0 ...) are mapped here; Flink on Java 17 (Unicode 13) "
                     "keeps them.")


def _java_case(fn: str, method: Callable[[str], str]) -> Callable[[Call], exp.Expression]:
    """UPPER/LOWER as Java's ``String.toUpperCase()``/``toLowerCase()`` (what Flink calls).

    Java maps case with Unicode's full mappings ('ß' → 'SS', 'ﬁ' → 'FI', 'İ' → 'i̇', a final 'Σ'
    → 'ς'); DuckDB's functions with the simple ones, which agree on ASCII text only. So ASCII
    text (as many bytes as characters) is mapped by DuckDB, the rest by Python's ``str`` method,
    which has Java's full mappings (checked over every code point against Java 17's: they
    differ only on characters Unicode 14 added).
    """
    java = python_call(fn, lambda a: rowwise(method, (a,), pa.string()), ("VARCHAR",), "VARCHAR")

    def build(c: Call) -> exp.Expression:
        return template(f"CASE WHEN strlen({{0}}) <> length({{0}}) THEN {{1}} ELSE {fn.lower()}({{0}}) END",
                        c.args[0], Arg(java(c), None))

    build.__doc__ = f"{fn} of ASCII text in DuckDB, of other text in Python (Java's full case mapping)."
    return build


scalar("UPPER", group="string", sig=((S,),), result=STRING, differences=_CASE_DIFFERENCES)(
    _java_case("UPPER", str.upper))
scalar("LOWER", group="string", sig=((S,),), result=STRING, differences=_CASE_DIFFERENCES)(
    _java_case("LOWER", str.lower))


_TRIM = {"BOTH": "trim", "LEADING": "ltrim", "TRAILING": "rtrim"}


@scalar("TRIM", "LTRIM", "RTRIM", group="string", sig=((S,), (S, S)), result=STRING)
def trim(c: Call) -> exp.Expression:
    """Removes any of the characters (default: spaces) from both ends, the start or the end.

    Called as TRIM([BOTH | LEADING | TRAILING] [chars FROM] s), LTRIM(s), RTRIM(s).
    """
    fn = _TRIM[c.unit or "BOTH"]
    if len(c.args) == 1:
        return template(f"{fn}({{0}}, ' ')", c.args[0])
    return template(f"{fn}({{0}}, {{1}})", *c.args)


@scalar("SUBSTRING", "SUBSTR", group="string", sig=((S, INTEGER), (S, INTEGER, INTEGER)), result=STRING)
def substring(c: Call) -> exp.Expression:
    """Flink's SUBSTRING (DuckDB's differs on all four points below).

    Start 0 counts as 1, a negative start counts from the end, a start before the beginning
    gives '', a negative length gives NULL.
    """
    if len(c.args) == 2:
        return template("CASE WHEN {1} < -length({0}) THEN '' "
                        "ELSE substring({0}, CASE WHEN {1} = 0 THEN 1 ELSE {1} END) END", *c.args)
    return template("CASE WHEN {2} < 0 THEN NULL WHEN {1} < -length({0}) THEN '' "
                    "ELSE substring({0}, CASE WHEN {1} = 0 THEN 1 ELSE {1} END, {2}) END", *c.args)


@scalar("REPLACE", group="string", sig=((S, S, S),), result=STRING)
def replace(c: Call) -> exp.Expression:
    """Every occurrence replaced.

    An empty search string inserts the replacement between all characters and at both ends,
    as Java's String.replace.
    """
    return template("CASE WHEN {1} = '' THEN regexp_replace({0}, '', replace({2}, '\\', '\\\\'), 'g') "
                    "ELSE replace({0}, {1}, {2}) END", *c.args)


@scalar("CONCAT", group="string", sig=((f"{S}...",),), result=STRING)
def concat(c: Call) -> exp.Expression:
    """The strings joined with ``||``: NULL if any is NULL (DuckDB's concat function skips NULLs)."""
    return template(" || ".join("{%d}" % i for i in range(len(c.args))), *c.args)


@scalar("CONCAT_WS", group="string", sig=((S, f"{S}..."),), result=STRING,
        nulls="NULL if the separator is NULL; NULL strings are skipped")
def concat_ws(c: Call) -> exp.Expression:
    """The strings joined by the separator, skipping NULLs."""
    return template("concat_ws(" + ", ".join("{%d}" % i for i in range(len(c.args))) + ")", *c.args)


@scalar("POSITION", "LOCATE", group="string", sig=((S, S), (S, S, INTEGER)), result=INT)
def locate(c: Call) -> exp.Expression:
    """1-based position of the first occurrence of sub at or after ``from``, 0 when absent.

    Called as POSITION(sub IN s), LOCATE(sub, s[, from]); a ``from`` below 1 counts as 1; an
    empty sub is at 1 (Flink).
    """
    if len(c.args) == 2:
        return template("strpos({1}, {0})", *c.args)
    start = "CASE WHEN {2} < 1 THEN 1 ELSE {2} END"  # greatest() would skip a NULL
    return template(f"CASE WHEN {{0}} = '' AND {{1}} IS NOT NULL AND {{2}} IS NOT NULL THEN 1 "
                    f"WHEN strpos(substring({{1}}, {start}), {{0}}) = 0 THEN 0 "
                    f"ELSE strpos(substring({{1}}, {start}), {{0}}) + {start} - 1 END", *c.args)


@scalar("INITCAP", group="string", sig=((S,),), result=STRING,
        differences="As Flink, only ASCII letters and digits make words ('élan' → 'éLan').")
def initcap(c: Call) -> exp.Expression:
    """The first letter of each word upper case, the rest lower case.

    Words are runs of ASCII letters and digits (Flink's rule); other characters stay as they are.
    """
    words = "'[A-Za-z0-9]+|[^A-Za-z0-9]+'"
    return template(f"array_to_string(list_transform(regexp_extract_all({{0}}, {words}), "
                    "lambda w: CASE WHEN regexp_matches(w, '^[A-Za-z0-9]') "
                    "THEN upper(w[1:1]) || lower(w[2:]) ELSE w END), '')", *c.args)


def _code_units(s: str) -> str:
    """``s`` with each character outside the BMP as its two UTF-16 surrogates (Java's ``char``s)."""
    return "".join(c if c < "\U00010000" else chr(0xD7C0 + (ord(c) >> 10)) + chr(0xDC00 + (ord(c) & 0x3FF))
                   for c in s)


def _java_replace_all(s: str, pattern: str, replacement: str) -> str:
    """As Flink's REGEXP_REPLACE: Java's ``String.replaceAll`` with a literal replacement.

    Java's ``Matcher.find`` loop over UTF-16 code units: each search starts where the last match
    ended, one code unit further after an empty match, so an empty match right after a non-empty one
    counts ('aaa' with 'a*' is 'xx'), an empty match is never followed by a non-empty one at the same
    place ('a' with '|a' is '-a-'; Python's re.sub: '--'), and a pattern matching the empty string
    matches between the two halves of a character outside the BMP too. Flink keeps the result as
    UTF-8, where a half character is '?' (``REGEXP_REPLACE('😀', 'x*', 'R')`` is 'R?R?R').

    Matches are found by Python's engine on the characters; a search that starts at a second half
    (after an empty match) is tried on the code units there. Not found: a match starting at a
    second half that the search from a whole character steps over (a pattern matching a lone
    surrogate).
    """
    rx = re.compile(pattern)
    units = _code_units(s)
    start_of = [0]  # the code unit where each character (and the end) starts
    for c in s:
        start_of.append(start_of[-1] + (2 if c >= "\U00010000" else 1))
    char_at = {u: n for n, u in enumerate(start_of)}
    out, done, at = [], 0, 0
    while at <= len(units):
        if at in char_at:
            m = rx.search(s, char_at[at])
            found = (start_of[m.start()], start_of[m.end()]) if m else None
        else:  # the second half of a character: Java tries there first
            m = rx.match(units, at)
            found = (at, m.end()) if m else None
            if found is None and at + 1 <= len(units):
                m = rx.search(s, char_at[at + 1])
                found = (start_of[m.start()], start_of[m.end()]) if m else None
        if found is None:
            break
        out += [units[done:found[0]], replacement]
        done = found[1]
        at = found[1] + (found[0] == found[1])
    out.append(units[done:])
    return _text("".join(out).encode("utf-16-le", "surrogatepass"))


_REPLACE_ALL = python_call("REGEXP_REPLACE", lambda *a: rowwise(_java_replace_all, a, pa.string()),
                           ("VARCHAR", "VARCHAR", "VARCHAR"), "VARCHAR")


_DYNAMIC_REPLACE = dynamic_call("REGEXP_REPLACE", java_regex.regexp_replace, pa.string(),
                                ("VARCHAR", "VARCHAR", "VARCHAR"), "VARCHAR")


@scalar("REGEXP_REPLACE", group="string", sig=((S, S, S),), result=STRING,
        differences="A literal pattern that can match the empty string runs on Java's engine (Java's empty "
                    "matches) for the rows where it matches non-empty text or holds a character outside the "
                    "BMP. " + java_regex.MECHANISM)
def regexp_replace(c: Call) -> exp.Expression:
    """Every match replaced by the replacement taken literally (as Flink: '$1' stays '$1').

    RE2's global replace skips an empty match that directly follows a non-empty match, Java's
    replaceAll does not ('aaa' with 'a*' is 'xx'), and RE2 steps over a character outside the BMP
    where Java matches between its two UTF-16 halves too. So for a literal pattern of minimum width
    0, the rows where some match is non-empty or that hold such a character are replaced in Python
    as Java (:func:`_java_replace_all`) and the others on RE2: up to the first non-empty match every
    engine visits the same (empty) matches, so a row within the BMP whose RE2 matches are all empty
    has no non-empty match in Java either, and its replacement is the same.
    """
    re2 = "regexp_replace({0}, {1}, replace({2}, '\\', '\\\\'), 'g')"
    if java_regex.on_java(c):
        return _DYNAMIC_REPLACE(c)
    if c.args[1].is_literal and isinstance(c.args[1].value(), str):
        # as the other regular expression functions, in our words at the call (not DuckDB's)
        java_regex.check_literal(c, c.args[1].value())
    if c.args[1].is_literal and c.args[1].value() is not None and min_width(c.args[1].value()) == 0:
        outside_bmp = "strlen({0}) <> length({0}) AND regexp_matches({0}, '[\\x{{10000}}-\\x{{10FFFF}}]')"
        # Java's replace over the same three placeholders: the arguments are computed once
        placeholders = [Arg(exp.Var(this=f"{{{i}}}"), a.type) for i, a in enumerate(c.args)]
        java = _REPLACE_ALL(Call(c.name, placeholders, c.node)).this
        some = "array_to_string(regexp_extract_all({0}, {1}), '') <> ''"
        return java_regex.guard(c, template(f"CASE WHEN {some} OR {outside_bmp} THEN {java} ELSE {re2} END",
                                            *c.args), _DYNAMIC_REPLACE)
    return java_regex.guard(c, template(re2, *c.args), _DYNAMIC_REPLACE)


def one_pass_extract(c: Call) -> exp.Expression | None:
    """The group of the first match of ``f(s, pattern[, group])`` in one regex pass (None: not exact).

    DuckDB's ``regexp_extract`` gives '' when nothing matches or the group did not take part
    (Flink: NULL) and when the group matched '' (Flink: ''). For literal arguments whose group
    (default 0, the whole match) never matches '' (:func:`~.regex_shape.group_never_empty`) the
    last cannot happen, so NULLIF makes it Flink's answer.
    """
    args = c.args[1:3]
    if not all(a.is_literal for a in args) or java_regex.on_java(c) or java_regex.needs_guard(c):
        return None
    pattern, group = args[0].value(), args[1].value() if len(args) > 1 else 0
    if isinstance(pattern, str):  # refused before any form of the call is chosen
        java_regex.check_literal(c, pattern)
    if not isinstance(pattern, str) or not isinstance(group, int) or not group_never_empty(pattern, group):
        return None
    extract = f"regexp_extract({{0}}, {{1}}, {group})"
    if volatile(c.args[0].text):  # DuckDB's nullif computes its first argument twice (compares one)
        return template(bind(extract, "__rx", "nullif(__rx, '')"), c.args[0], c.args[1])
    return template(f"nullif({extract}, '')", c.args[0], c.args[1])


def _pattern_and_group(c: Call, default: int) -> tuple[str | None, int]:
    """The literal pattern and group of ``f(s, pattern[, group])``; (None, 0) when the call is NULL.

    NULL for a NULL pattern or group and for a group the pattern does not have (Flink 2.3 answers
    NULL for both REGEXP_EXTRACT and REGEXP_EXTRACT_ALL).

    Raises:
        FunctionError: when an argument is not a literal or the pattern does not compile or is read
            otherwise than Java (:func:`~.java_regex.check_literal`).
    """
    pattern = c.literal(1, "the pattern")
    group = c.literal(2, "the group index") if len(c.args) == 3 else default
    if pattern is None or group is None:
        return None, 0
    groups = java_regex.check_literal(c, pattern).groups
    return (pattern, group) if 0 <= group <= groups else (None, 0)


_VV, _VVI = ("VARCHAR", "VARCHAR"), ("VARCHAR", "VARCHAR", "BIGINT")
_DYNAMIC_EXTRACT = {
    2: dynamic_call("REGEXP_EXTRACT", lambda s, p: java_regex.regexp_extract(s, p, 0), pa.string(), _VV,
                    "VARCHAR"),
    3: dynamic_call("REGEXP_EXTRACT", java_regex.regexp_extract, pa.string(), _VVI, "VARCHAR")}
_STRINGS = pa.list_(pa.string())
_DYNAMIC_EXTRACT_ALL = {
    2: dynamic_call("REGEXP_EXTRACT_ALL", lambda s, p: java_regex.regexp_extract_all(s, p, 1), _STRINGS, _VV,
                    "VARCHAR[]"),
    3: dynamic_call("REGEXP_EXTRACT_ALL", java_regex.regexp_extract_all, _STRINGS, _VVI, "VARCHAR[]")}


@scalar("REGEXP_EXTRACT", group="string", sig=((S, S), (S, S, INTEGER)), result=STRING,
        nulls="NULL if any argument is NULL, nothing matches, the group does not exist or did not take part "
              "in the match",
        differences=java_regex.MECHANISM,
        fast=one_pass_extract)
def regexp_extract(c: Call) -> exp.Expression:
    """Group ``g`` (default 0: the whole match) of the first match of the pattern.

    The general form: a group that matched '' is '', one that did not take part NULL (the fast
    path, :func:`one_pass_extract`, serves the groups that never match '').
    """
    if not all(a.is_literal for a in c.args[1:]) or java_regex.on_java(c):
        return _DYNAMIC_EXTRACT[len(c.args)](c)
    pattern, group = _pattern_and_group(c, 0)
    if pattern is None:
        return exp.Null()
    # The first match's group, NULL without a match: one regex pass (regexp_matches + regexp_extract
    # took two, and the FN benchmark workload spent most of its time there).
    first = template(f"regexp_extract_all({{0}}, {{1}}, {group})[1]", c.args[0], c.args[1])
    return java_regex.guard(c, first, _DYNAMIC_EXTRACT[len(c.args)])


@scalar("REGEXP_EXTRACT_ALL", group="string", sig=((S, S), (S, S, INTEGER)),
        result=lambda c: SqlType.array(SqlType("STRING")),
        nulls="NULL if any argument is NULL or the group does not exist; an element is NULL where the "
              "group did not take part in the match",
        differences="A literal pattern that matches the empty string runs on Java's engine (Java's empty "
                    "matches). " + java_regex.MECHANISM)
def regexp_extract_all(c: Call) -> exp.Expression:
    """Group ``g`` (default 1, as Flink's ``RegexpExtractAllFunction``) of every match, in order.

    A group that does not exist gives NULL: Flink 2.3 answers NULL (difffuzz regression
    ``REGEXP_EXTRACT_ALL(s, 'b')``), though its source throws on it.

    Java's ``Matcher.find`` loop and RE2's ``regexp_extract_all`` visit the same matches when none
    is empty (after an empty match Java steps one UTF-16 code unit on), hence the pattern's check;
    both give NULL for a group that did not take part, '' for one that matched ''.
    """
    if not all(a.is_literal for a in c.args[1:]) or java_regex.on_java(c):
        return _DYNAMIC_EXTRACT_ALL[len(c.args)](c)
    pattern, group = _pattern_and_group(c, 1)
    if pattern is None:
        return exp.Null()
    if min_width(pattern) == 0:
        if java_regex.runs_as_java(pattern):  # Java's empty matches: its find loop, row by row
            return _DYNAMIC_EXTRACT_ALL[len(c.args)](c)
        msg = (f"REGEXP_EXTRACT_ALL of a pattern that matches the empty string ({pattern!r}) is not "
               "supported yet (Java's empty matches are not reproduced)")
        raise c.fail(msg)
    return java_regex.guard(c, template(f"regexp_extract_all({{0}}, {{1}}, {group})", c.args[0], c.args[1]),
                            _DYNAMIC_EXTRACT_ALL[len(c.args)])


@scalar("SPLIT_INDEX", group="string", sig=((S, S, INTEGER),), result=STRING,
        nulls="NULL if any argument is NULL, the string is empty or the index is out of range",
        differences="An empty separator splits at every white space character (Java's "
                    "Character.isWhitespace), as Flink.")
def split_index(c: Call) -> exp.Expression:
    """Field ``index`` (0-based) of the string split at every occurrence of the separator.

    An empty separator: commons-lang's ``splitByWholeSeparatorPreserveAllTokens`` (Flink's
    ``SqlFunctionUtils.splitIndex``) splits at each white space character, keeping the empty fields
    (``SPLIT_INDEX(' Hello World ', '', 0)`` is ''; trimming and splitting at runs gave 'Hello').
    """
    # NULL for a NULL separator (DuckDB's string_split would not split: SPLIT_INDEX(' ', NULL, 0) was ' ')
    return template("CASE WHEN {0} = '' OR {2} < 0 OR {1} IS NULL THEN NULL WHEN {1} = '' "
                    f"THEN string_split_regex({{0}}, '{_JAVA_WHITESPACE}')[CAST({{2}} AS BIGINT) + 1] "
                    "ELSE string_split({0}, {1})[CAST({2} AS BIGINT) + 1] END", *c.args)


# Java's Character.isWhitespace: Unicode space separators but the no-break ones, and these controls
# (braces doubled: the text goes into a template)
_JAVA_WHITESPACE = ("[\\t\\n\\x0B\\f\\r\\x1C-\\x1F \\x{{1680}}\\x{{2000}}-\\x{{2006}}"
                    "\\x{{2008}}-\\x{{200A}}\\x{{2028}}\\x{{2029}}\\x{{205F}}\\x{{3000}}]")


@scalar("REPEAT", group="string", sig=((S, INTEGER),), result=STRING,
        differences="A result longer than 1,073,741,823 characters fails the job with a message "
                    "(Flink: an OutOfMemoryError).")
def repeat(c: Call) -> exp.Expression:
    """The string repeated n times ('' for n <= 0).

    Raises (when run): a job failure for a result past :data:`JAVA_MAX_STRING` characters.
    """
    too_long = fail_sql(f"'REPEAT: the result would be longer than {JAVA_MAX_STRING:,} characters (' || "
                        "length({0}) || ' characters repeated ' || {1} || ' times)'")
    return template("CASE WHEN {0} IS NULL THEN NULL WHEN {1} < 0 THEN '' "
                    f"WHEN CAST(length({{0}}) AS BIGINT) * {{1}} > {JAVA_MAX_STRING} THEN {too_long} "
                    "ELSE repeat({0}, {1}) END", *c.args)


@scalar("CHR", group="string", sig=((INTEGER,),), result=STRING)
def chr_(c: Call) -> exp.Expression:
    """The character with code n modulo 256 ('' for a negative n)."""
    return template("CASE WHEN {0} < 0 THEN '' ELSE chr(CAST({0} % 256 AS INTEGER)) END", *c.args)

scalar("CHAR_LENGTH", "CHARACTER_LENGTH", group="string", sig=((S,),), result=INT)(duckdb_call("length"))

scalar("REVERSE", group="string", sig=((S,),), result=STRING)(duckdb_call("reverse"))



@scalar("ASCII", group="string", sig=((S,),), result=INT)
def ascii_(c: Call) -> exp.Expression:
    """The first byte of the string's UTF-8 encoding as a signed byte, as Flink (0 for '')."""
    byte = "CAST('0x' || left(hex(encode(substring({0}, 1, 1))), 2) AS INTEGER)"
    return template(f"CASE WHEN {{0}} = '' THEN 0 WHEN ascii({{0}}) < 128 THEN ascii({{0}}) "
                    f"ELSE {byte} - 256 END", *c.args)


def _first_last(fn: str):
    def build(c: Call) -> exp.Expression:
        """The first (LEFT) or last (RIGHT) n characters; '' for n <= 0.

        DuckDB's functions drop -n characters instead.
        """
        # a NULL string is NULL whatever n (was '' for n <= 0)
        return template(f"CASE WHEN {{0}} IS NULL THEN NULL WHEN {{1}} <= 0 THEN '' "
                        f"ELSE {fn}({{0}}, {{1}}) END", *c.args)

    return build


scalar("LEFT", group="string", sig=((S, INTEGER),), result=STRING)(_first_last("left"))
scalar("RIGHT", group="string", sig=((S, INTEGER),), result=STRING)(_first_last("right"))


@scalar("TRANSLATE", group="string", sig=((S, S, S),), result=STRING,
        nulls="NULL if the string is NULL; a NULL from leaves it as it is, a NULL to removes "
              "from's characters")
def translate(c: Call) -> exp.Expression:
    """Each character of ``from`` replaced by the one at the same place in ``to``.

    Characters without a counterpart (``to`` is shorter) are removed. As Flink's
    TranslateFunction: an empty or NULL ``from`` (or an empty string) leaves the string as it is,
    and a NULL ``to`` removes every character of ``from`` (Flink 2.3: TRANSLATE('x', NULL, NULL)
    is 'x'; DuckDB's translate would be NULL).
    """
    return template("CASE WHEN {1} IS NULL OR {1} = '' OR {0} = '' THEN {0} "
                    "ELSE translate({0}, {1}, coalesce({2}, '')) END", *c.args)


@scalar("TO_BASE64", group="string", sig=((S,), ("BYTES",)), result=STRING)
def to_base64(c: Call) -> exp.Expression:
    """The base64 text of a string's UTF-8 bytes, or of bytes as they are.

    Flink 2.3 takes both: ``TO_BASE64(BITMAP_TO_BYTES(b))`` (difffuzz campaign 34).
    """
    a = c.args[0]
    return template("to_base64({0})" if a.type is not None and a.type.name == "BYTES" else
                    "to_base64(encode({0}))", a)
@scalar("FROM_BASE64", group="string", sig=((S,),), result=STRING,
        failures=(Failure(r"Could not decode string \"(.*)\" as base64: invalid byte value '(\d+)'",
                          lambda m: f"FROM_BASE64 failed: Illegal base64 character {int(m.group(2)):x} "
                                    "(Flink fails the job too, java.util.Base64's words)"),))
def from_base64(c: Call) -> exp.Expression:
    """The UTF-8 text of the base64 bytes, as Flink's ``java.util.Base64`` decoder reads them.

    Java takes a last unit of 2 or 3 characters without its '=' padding (FROM_BASE64('YWJ') is
    'ab'); DuckDB's decoder only whole units: the padding is added where none is written (a unit
    of 1 character, or one padded in part, still fails, as in Flink: the job fails, in words of
    ours rather than DuckDB's).
    """
    raw = ("from_base64(CASE WHEN strpos({0}, '=') = 0 AND length({0}) % 4 IN (2, 3) "
           "THEN {0} || repeat('=', 4 - length({0}) % 4) ELSE {0} END)")
    # bytes that are no UTF-8 are read as Java's new String(bytes, UTF_8): U+FFFD for each malformed part
    return template(bind(raw, "__b", utf8_text("__b")), *c.args)


@scalar("HEX", group="string", sig=(("INTEGER",), (S,)), result=STRING)
def hex_(c: Call) -> exp.Expression:
    """Upper-case hexadecimal of an integer or of a string's UTF-8 bytes.

    A negative integer is written in two's complement.
    """
    if c.args[0].type is not None and c.args[0].type.name != "STRING":
        return template("hex(CAST({0} AS BIGINT))", *c.args)
    return template("hex({0})", *c.args)


@scalar("BIN", group="string", sig=(("INTEGER",),), result=STRING)
def bin_(c: Call) -> exp.Expression:
    """Binary digits of a BIGINT (two's complement for negatives)."""
    return template("bin(CAST({0} AS BIGINT))", *c.args)


def _is_class(pattern: str):
    def build(c: Call) -> exp.Expression:
        """True when the string is not empty and all its characters are of the class.

        False for NULL.
        """
        return template(f"coalesce(regexp_full_match({{0}}, '{pattern}'), false)", *c.args)

    return build


scalar("IS_DIGIT", group="string", sig=((S,),), result=fixed("BOOLEAN"),
       nulls="false for NULL")(_is_class("[0-9]+"))
scalar("IS_ALPHA", group="string", sig=((S,),), result=fixed("BOOLEAN"),
       nulls="false for NULL")(_is_class("\\p{{L}}+"))
