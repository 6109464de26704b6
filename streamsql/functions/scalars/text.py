"""More string functions: the REGEXP family, URLs, charsets and a few more.

REGEXP, REGEXP_COUNT, REGEXP_INSTR, REGEXP_SUBSTR, URL_ENCODE, URL_DECODE, PARSE_URL, ELT, BTRIM,
STARTSWITH, ENDSWITH, INSTR, ENCODE, DECODE, UNHEX and IS_DECIMAL. Where Java's behaviour has no
DuckDB function (URLEncoder/URLDecoder, java.net.URL, charsets) it is computed in Python over
whole batches (:func:`~.registry.python_call`).
"""

from __future__ import annotations

import re
import urllib.parse

import pyarrow as pa
from sqlglot import exp

from streamsql.core.types import SqlType
from streamsql.functions.python_functions import rowwise
from streamsql.functions.scalars import java_regex
from streamsql.functions.scalars.java_regex import dynamic_call
from streamsql.functions.scalars.regex_shape import min_width
from streamsql.functions.scalars.registry import Arg, Call, fixed, python_call, scalar, sql_string, template
from streamsql.functions.scalars.string import one_pass_extract

S, INTEGER = "STRING", "INTEGER"
STRING = fixed("STRING")
BOOLEAN = fixed("BOOLEAN")
INT = fixed("INT")


def regex(c: Call, i: int) -> str | None:
    """Argument ``i``, a regular expression, as a checked DuckDB literal for a template (None for NULL).

    Raises:
        FunctionError: when it is not a literal, does not compile or is read otherwise than Java
            (:func:`~.java_regex.check_literal`).
    """
    pattern = c.literal(i, "the pattern")
    if pattern is None:
        return None
    java_regex.check_literal(c, pattern, i)
    # as written for RE2 (Java's \p{..} properties); braces doubled: the text goes into a template
    # (REGEXP(s, 'a{2}') failed with an IndexError)
    return sql_string(c.args[i].value()).replace("{", "{{").replace("}", "}}")


def _regex_build(body: str, dynamic):
    def build(c: Call) -> exp.Expression:
        """The pattern (a literal) compiled once; NULL for a NULL pattern; else row by row (``dynamic``)."""
        if java_regex.on_java(c):
            return dynamic(c)
        pattern = regex(c, 1)
        if pattern is None:
            return exp.Null()
        return java_regex.guard(c, template(body.replace("{re}", pattern), c.args[0]), dynamic)

    return build


_RE = java_regex.MECHANISM
_VV = ("VARCHAR", "VARCHAR")
_DYNAMIC_REGEXP = dynamic_call("REGEXP", java_regex.regexp, pa.bool_(), _VV, "BOOLEAN")


@scalar("REGEXP", group="string", sig=((S, S),), result=BOOLEAN, differences=_RE)
def regexp(c: Call) -> exp.Expression:
    """Whether the pattern matches part of the string (false for an empty pattern, as Flink)."""
    if java_regex.on_java(c):
        return _DYNAMIC_REGEXP(c)
    pattern = regex(c, 1)
    if pattern is None:
        return exp.Null()
    # NULL IS NOT NULL AND false was false: a NULL string is NULL, as every pattern's
    empty = "CASE WHEN {0} IS NOT NULL THEN false END"
    test = empty if pattern == "''" else f"regexp_matches({{0}}, {pattern})"
    return java_regex.guard(c, template(f"({test})", c.args[0]), _DYNAMIC_REGEXP)
scalar("REGEXP_SUBSTR", group="string", sig=((S, S),), result=STRING, differences=_RE,
       nulls="NULL if any argument is NULL or nothing matches", fast=one_pass_extract)(
    _regex_build("CASE WHEN regexp_matches({0}, {re}) THEN regexp_extract({0}, {re}) END",
                 dynamic_call("REGEXP_SUBSTR", lambda s, p: java_regex.regexp_extract(s, p, 0), pa.string(),
                              _VV, "VARCHAR")))
_DYNAMIC_COUNT = dynamic_call("REGEXP_COUNT", java_regex.regexp_count, pa.int32(), _VV, "INTEGER")
_COUNT = _regex_build("len(regexp_extract_all({0}, {re}))", _DYNAMIC_COUNT)


@scalar("REGEXP_COUNT", group="string", sig=((S, S),), result=INT, differences=_RE)
def regexp_count(c: Call) -> exp.Expression:
    """The number of matches, as Java's ``find`` loop counts them.

    A literal pattern that can match the empty string is counted row by row as Java does (after an
    empty match the next search starts one UTF-16 code unit on: between the halves of an emoji too);
    the others on RE2, whose matches are Java's when none is empty.
    """
    pattern = c.args[1].value() if c.args[1].is_literal else None
    if java_regex.on_java(c) or (isinstance(pattern, str) and min_width(pattern) == 0
                                 and java_regex.runs_as_java(pattern)):
        return _DYNAMIC_COUNT(c)
    return _COUNT(c)
_NOT_ASTRAL = "'[^\\x{{10000}}-\\x{{10FFFF}}]'"  # braces doubled: the text goes into a template
_DYNAMIC_INSTR = dynamic_call("REGEXP_INSTR", java_regex.regexp_instr, pa.int32(), _VV, "INTEGER")


@scalar("REGEXP_INSTR", group="string", sig=((S, S),), result=INT, differences=_RE)
def regexp_instr(c: Call) -> exp.Expression:
    """The 1-based position of the first match, 0 when nothing matches.

    The lazy prefix before an anchored match is the text before the leftmost match; its length
    is counted in UTF-16 code units, as Java's ``Matcher.start``.
    """
    if java_regex.on_java(c):
        return _DYNAMIC_INSTR(c)
    pattern = regex(c, 1)
    if pattern is None:
        return exp.Null()
    prefix = sql_string("(?s)^(.*?)(?:" + c.args[1].value() + ")").replace("{", "{{").replace("}", "}}")
    # Java's index counts UTF-16 code units: a character outside the BMP is two
    before = f"regexp_extract({{0}}, {prefix}, 1)"
    units = f"length({before}) + length(regexp_replace({before}, {_NOT_ASTRAL}, '', 'g'))"
    return java_regex.guard(c, template(f"CASE WHEN regexp_matches({{0}}, {pattern}) "
                                       f"THEN {units} + 1 WHEN {{0}} IS NOT NULL THEN 0 END", c.args[0]),
                            _DYNAMIC_INSTR)


@scalar("BTRIM", group="string", sig=((S,), (S, S)), result=STRING)
def btrim(c: Call) -> exp.Expression:
    """Any of the characters (default: a space) removed from both ends."""
    return template("trim({0}, {1})" if len(c.args) == 2 else "trim({0}, ' ')", *c.args)


scalar("STARTSWITH", group="string", sig=((S, S),), result=BOOLEAN)(
    lambda c: template("starts_with({0}, {1})", *c.args))
scalar("ENDSWITH", group="string", sig=((S, S),), result=BOOLEAN)(
    lambda c: template("suffix({0}, {1})", *c.args))


def _java_instr(s: str, sub: str, start: int, nth: int) -> int:
    """Flink 2.3's ``SqlFunctionUtils.instr`` (read from its bytecode; positions in characters).

    From ``start`` (1-based) on, the position of the ``nth`` occurrence, each search starting one
    character after the last occurrence's start (so they may overlap); 0 when there are fewer, or
    for a start of 0. A negative start searches the reversed strings from ``-start`` and maps the
    position back: the occurrence ends at or before character ``length + start + 1``. An empty
    substring is at 1 (``BinaryStringData.indexOf`` of '' is 0 from any index).

    Raises:
        ValueError: ``nth`` below 1 (Flink's job fails: ``nthAppearance must be positive!``), or a
            start of -2147483648 (Flink recurses until its stack overflows).
    """
    if nth <= 0:
        msg = f"INSTR: nthAppearance must be positive! (was {nth})"
        raise ValueError(msg)
    if start == 0:
        return 0
    if start > 0:
        at = found = start
        for _ in range(nth):
            found = (0 if sub == "" else s.find(sub, at - 1)) + 1
            if found == 0:
                return 0
            at = found + 1
        return found
    if start == -2**31:
        msg = "INSTR: a start of -2147483648 cannot be negated (Flink's job fails: StackOverflowError)"
        raise ValueError(msg)
    back = _java_instr(s[::-1], sub[::-1], -start, nth)
    return 0 if back == 0 else len(s) + 2 - back - len(sub)


_INSTR = python_call("INSTR", lambda *a: rowwise(_java_instr, a, pa.int32()),
                     ("VARCHAR", "VARCHAR", "INTEGER", "INTEGER"), "INTEGER")


@scalar("INSTR", group="string", sig=((S, S), (S, S, INTEGER), (S, S, INTEGER, INTEGER)), result=INT,
        nulls="NULL if any argument is NULL")
def instr(c: Call) -> exp.Expression:
    """The 1-based position of an occurrence of the substring, 0 when absent (or for a start of 0).

    INSTR(s, sub): the first occurrence; INSTR(s, sub, start[, nth]): the ``nth`` (default 1) from
    ``start``, counting from the end for a negative start, as Flink (:func:`_java_instr`; a
    ``nth`` below 1 fails the job, as in Flink).
    """
    if len(c.args) == 2:
        return template("strpos({0}, {1})", *c.args)
    if len(c.args) == 3:
        return _INSTR(Call(c.name, [*c.args, Arg(exp.Literal.number(1), SqlType("INT"))], c.node))
    return _INSTR(c)


@scalar("ELT", group="string", sig=((INTEGER, f"{S}..."),), result=STRING,
        nulls="NULL if the index is NULL or out of range, or the chosen string is NULL")
def elt(c: Call) -> exp.Expression:
    """The index-th (1-based) of the strings."""
    if c.args[0].is_literal and isinstance(c.args[0].value(), int) and c.args[0].value() < 0:
        msg = f"ELT: index must be an integer starting from '0', but was '{c.args[0].value()}'"
        raise c.fail(msg)
    items = ", ".join("{%d}" % i for i in range(1, len(c.args)))
    return template(f"CASE WHEN {{0}} BETWEEN 1 AND {len(c.args) - 1} THEN [{items}][{{0}}] END", *c.args)


@scalar("IS_DECIMAL", group="string", sig=((S,),), result=BOOLEAN, nulls="false for NULL",
        differences="Hexadecimal floating-point text ('0x1p3') is not recognised.")
def is_decimal(c: Call) -> exp.Expression:
    """Whether Java's Double.parseDouble reads the string.

    Surrounding white space, a sign, digits with an optional fraction and exponent, a
    trailing f/F/d/D, NaN and Infinity (as Flink).
    """
    number = r"'\s*[+-]?(NaN|Infinity|([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?[fFdD]?)\s*'"
    return template(f"coalesce(regexp_full_match({{0}}, {number}), false)", *c.args)


@scalar("UNHEX", group="string", sig=((S,),), result=fixed("BYTES"),
        nulls="NULL if the argument is NULL or not hexadecimal",
        differences="An odd-length string counts a leading 0 digit ('414' gives 04 14; Flink: 00 14).")
def unhex(c: Call) -> exp.Expression:
    """The bytes of a hexadecimal string (an odd length counts a leading 0)."""
    return template("CASE WHEN regexp_full_match({0}, '[0-9A-Fa-f]*') THEN unhex({0}) END", *c.args)


# -- Java's URL handling, in Python --------------------------------------------------------------
def _url_encode(s: str) -> str:
    # java.net.URLEncoder keeps letters, digits and ".-*_", writes a space as '+'
    return urllib.parse.quote_plus(s, safe="*").replace("~", "%7E")


def _url_decode(s: str) -> str | None:
    if re.search(r"%(?![0-9A-Fa-f]{2})", s):
        return None  # java.net.URLDecoder refuses an incomplete escape
    return urllib.parse.unquote_plus(s, errors="replace")


scalar("URL_ENCODE", group="string", sig=((S,),), result=STRING)(python_call(
    "URL_ENCODE", lambda a: rowwise(_url_encode, (a,), pa.string()), ("VARCHAR",), "VARCHAR"))
scalar("URL_DECODE", group="string", sig=((S,),), result=STRING,
       nulls="NULL if the argument is NULL or holds an incomplete %-escape")(python_call(
    "URL_DECODE", lambda a: rowwise(_url_decode, (a,), pa.string()), ("VARCHAR",), "VARCHAR"))

_URL = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*):(?://([^/?#]*))?([^?#]*)(?:\?([^#]*))?(?:#(.*))?$", re.DOTALL)
_PROTOCOLS = ("http", "https", "ftp", "file", "jar")  # java.net.URL's handlers


def _url_part(url: str, part: str, key: str | None = None) -> str | None:
    """A part of ``url`` as java.net.URL gives it (None for a malformed URL or a missing part)."""
    m = _URL.match(url)
    if m is None or m.group(1).lower() not in _PROTOCOLS:
        return None
    protocol, authority, path, query, ref = m.groups()
    userinfo, _, hostport = (authority or "").rpartition("@")
    host = re.sub(r":\d*$", "", hostport) if not hostport.startswith("[") else hostport.split("]")[0] + "]"
    if key is not None:
        if part != "QUERY" or query is None:
            return None
        found = re.search(r"(?:^|&)" + re.escape(key) + r"=([^&]*)", query)
        return found.group(1) if found else None
    return {"PROTOCOL": protocol, "HOST": host if authority is not None else "", "PATH": path,
            "QUERY": query, "REF": ref, "AUTHORITY": authority, "USERINFO": userinfo or None,
            "FILE": path + ("?" + query if query is not None else "")}.get(part)


def _parse_url(*arrays: pa.ChunkedArray) -> pa.Array:
    return rowwise(lambda url, part, key=None: _url_part(url, part, key), arrays, pa.string())


_PARSE_URL = {n: python_call("PARSE_URL", _parse_url, ("VARCHAR",) * n, "VARCHAR") for n in (2, 3)}


@scalar("PARSE_URL", group="string", sig=((S, S), (S, S, S)), result=STRING,
        nulls="NULL if any argument is NULL, the URL is malformed or has no such part")
def parse_url(c: Call) -> exp.Expression:
    """PARSE_URL(url, part[, key]): a part of the URL, as java.net.URL parses it.

    Parts: HOST, PATH, QUERY (or, with a key, one query parameter), REF, PROTOCOL, FILE,
    AUTHORITY, USERINFO.
    """
    return _PARSE_URL[len(c.args)](c)


# -- charsets ----------------------------------------------------------------------------------------
_CHARSETS = {"UTF-8": "utf-8", "US-ASCII": "ascii", "ISO-8859-1": "latin-1", "UTF-16BE": "utf-16-be",
             "UTF-16LE": "utf-16-le", "UTF-16": "utf-16-be"}


def _charset(c: Call) -> str:
    name = c.literal(1, "the charset")
    codec = _CHARSETS.get(str(name).upper()) if name is not None else None
    if codec is None:
        msg = f"{c.name}: unsupported charset {name!r} (supported: {', '.join(_CHARSETS)})"
        raise c.fail(msg)
    return codec


def _encode(s: str, charset: str) -> bytes:
    bom = b"\xfe\xff" if charset == "UTF-16" else b""  # Java writes UTF-16 big-endian with a mark
    return bom + s.encode(_CHARSETS[charset.upper()], errors="replace")


def _decode(b: bytes, charset: str) -> str:
    data = b[2:] if charset.upper() == "UTF-16" and b[:2] == b"\xfe\xff" else b
    return data.decode(_CHARSETS[charset.upper()], errors="replace")


_ENCODE = python_call("ENCODE", lambda s, cs: rowwise(_encode, (s, cs), pa.binary()),
                      ("VARCHAR", "VARCHAR"), "BLOB")
_DECODE = python_call("DECODE", lambda b, cs: rowwise(_decode, (b, cs), pa.string()),
                      ("BLOB", "VARCHAR"), "VARCHAR")


@scalar("ENCODE", group="string", sig=((S, S),), result=fixed("BYTES"),
        differences="The charset must be a literal: UTF-8, US-ASCII, ISO-8859-1, UTF-16BE, UTF-16LE, UTF-16.")
def encode(c: Call) -> exp.Expression:
    """The string's bytes in the charset (unmappable characters as '?')."""
    _charset(c)
    return _ENCODE(c)


@scalar("DECODE", group="string", sig=(("BYTES", S),), result=STRING,
        differences="The charset must be a literal: UTF-8, US-ASCII, ISO-8859-1, UTF-16BE, UTF-16LE, UTF-16.")
def decode(c: Call) -> exp.Expression:
    """The bytes read in the charset (malformed input as U+FFFD)."""
    _charset(c)
    return _DECODE(c)
