"""Text formatting and conversions: PRINTF, JSON_QUOTE, JSON_UNQUOTE, INET_ATON, INET_NTOA.

PRINTF's format is Java's ``String.format`` (``java.util.Formatter``); it is read at planning
time (a literal) and translated conversion by conversion to DuckDB's ``printf`` over arguments
already rendered as Flink renders them (``%s`` of a DOUBLE is Java's ``Double.toString``, of a
BOOLEAN ``true``/``false``, of NULL ``null``). The JSON and IPv4 conversions follow Flink's
``JsonQuoteFunction``/``JsonUnquoteFunction`` and ``InetAtonFunction``/``InetNtoaFunction``,
computed in Python over whole batches. Checked against Flink 2.3 by the conformance cases.
"""

from __future__ import annotations

import json
import re

import pyarrow as pa
from sqlglot import exp

from streamsql.functions.python_functions import VectorFunction, register, rowwise
from streamsql.functions.scalars import java_format
from streamsql.functions.scalars.cast_string import flink_to_string
from streamsql.functions.scalars.registry import Arg, Call, fixed, python_call, scalar, sql_string

S = "STRING"
STRING = fixed("STRING")

# -- PRINTF -------------------------------------------------------------------------------------
_INT_BITS = {"TINYINT": "8", "SMALLINT": "16", "INT": "32", "BIGINT": "64", "DATE": "32"}
_TEXT_ARGS = ("STRING", "TINYINT", "SMALLINT", "INT", "BIGINT", "FLOAT", "DOUBLE", "DECIMAL", "BOOLEAN",
              "DATE", "NULL")


def _printf_text(a: Arg) -> str:
    """DuckDB SQL of the text Java's ``String.valueOf`` makes of Flink's internal object of ``a``.

    A DATE is its Integer day number, a DOUBLE Java's ``Double.toString``, a BOOLEAN
    ``true``/``false``; NULL stays NULL.
    """
    t = a.type.name if a.type is not None else None
    if t == "DATE":
        return f"CAST(({a.text} - DATE '1970-01-01') AS VARCHAR)"
    text = flink_to_string(a.text, a.type) or f"CAST({a.text} AS VARCHAR)"
    return f"lower({text})" if t == "BOOLEAN" else text


def _printf_argument(conv: str, a: Arg) -> tuple[str, str]:
    """(kind, DuckDB SQL of the VARCHAR) of argument ``a`` for conversion ``conv`` (:mod:`.java_format`)."""
    t = a.type.name if a.type is not None else "NULL"
    if conv in "sS":
        return "text", _printf_text(a)
    if conv in "bB":  # Java: a Boolean's own value, any other object true
        if t == "BOOLEAN":
            return "text", f"CASE WHEN {a.text} THEN 'true' WHEN NOT {a.text} THEN 'false' END"
        return "text", f"CASE WHEN {a.text} IS NOT NULL THEN 'true' END"
    null_only = f"CASE WHEN {a.text} IS NOT NULL THEN '' END"
    if conv in "cC":
        ok = t in ("TINYINT", "SMALLINT", "INT")
        return ("32", f"CAST({a.text} AS VARCHAR)") if ok else ("bad", null_only)
    if conv in "doxX":
        if t == "DATE":
            return "32", f"CAST(({a.text} - DATE '1970-01-01') AS VARCHAR)"
        return (_INT_BITS[t], f"CAST({a.text} AS VARCHAR)") if t in _INT_BITS else ("bad", null_only)
    if t in ("FLOAT", "DOUBLE"):  # Java widens a Float to a double
        return "double", f"CAST(CAST({a.text} AS DOUBLE) AS VARCHAR)"
    return "bad", null_only


_PRINTF = {}


def _printf_function(n: int) -> VectorFunction:
    """The vector function formatting rows of ``n`` arguments (the plan first), made once per ``n``."""
    if n not in _PRINTF:
        _PRINTF[n] = register(VectorFunction(
            f"__streamsql_java_printf_{n}", "Function PRINTF",
            lambda *a: pa.array([java_format.format_row(*row) for row in zip(*(x.to_pylist() for x in a))],
                                pa.string()),
            ("VARCHAR",) * (n + 1), "VARCHAR", True))
    return _PRINTF[n]


def vectorized(pieces: list, rendered: list[tuple[str, str]]) -> str | None:
    """DuckDB SQL of a PRINTF whose every specifier writes its argument's text unchanged, else None.

    The common formats (``'%s: %d'``, ``'%s%%'``): ``%s`` of a STRING, number, BOOLEAN or DATE and
    ``%d`` of an integer, with no flags, width or precision, ``%b``, ``%%`` and ``%n`` bare. Java's
    Formatter then writes the argument's text (:func:`_printf_argument`, the text the row-wise path
    is given) or ``null`` for NULL (``false`` for ``%b``), which a concatenation in DuckDB writes
    for the whole batch at once; the others go row by row through :mod:`.java_format`
    (tests/functions/test_printf_vectorized.py compares both).
    """
    out = []
    for p in pieces:
        if isinstance(p, str):
            out.append(sql_string(p))
            continue
        conv, flags, width, precision, slot = p
        if flags or width != -1 or precision != -1:
            return None
        if conv == "%":
            out.append("'%'")
        elif conv == "n":
            out.append(sql_string("\n"))
        elif conv in "sbd" and rendered[slot][0] in ("text", *_INT_BITS.values()):
            if conv == "d" and rendered[slot][0] == "text":  # %d of a non-integer: Java refuses it
                return None
            out.append(f"coalesce({rendered[slot][1]}, '{'false' if conv == 'b' else 'null'}')")
        else:
            return None
    return f"({' || '.join(out) or sql_string('')})"


@scalar("PRINTF", group="string", sig=((S, "ANY..."), (S,)), result=STRING,
        differences="The format must be a literal; %h, %a and %t are refused at planning (Flink formats "
                    "an internal object's hash, a hexadecimal double, a date of a Long); %s of a TIMESTAMP, "
                    "BYTES or composite value is refused (Flink formats its internal object). A double's "
                    "digits are its shortest decimal ones (Java's FloatingDecimal gives one more for a few "
                    "values).",
        nulls="NULL if the format is NULL or Java's Formatter refuses the format or an argument (%d of a "
              "DOUBLE, %f of a DECIMAL, a precision with %d, a missing argument...: Flink returns NULL); a "
              "NULL argument is written 'null' (as Java: cut to the precision, 'NULL' for an upper-case "
              "conversion, 'false' for %b)")
def printf(c: Call) -> exp.Expression:
    """Java's ``String.format(Locale.US, format, args...)`` (:mod:`.java_format`)."""
    fmt = c.literal(0, "the format")
    if fmt is None:
        return exp.Null()
    args = c.args[1:]
    try:
        pieces = java_format.parse(fmt, len(args))
    except java_format.Refused:
        return exp.Null()
    except ValueError as e:
        msg = f"PRINTF: the conversion {e.args[0]!r} is not supported yet"
        raise c.fail(msg) from None
    # one VARCHAR per (argument, conversion) used, rendered in SQL; the plan names them by slot
    used = sorted({(p[4], p[0]) for p in pieces if not isinstance(p, str) and p[4] >= 0})
    for i, conv in used:
        t = args[i].type
        if conv in "sS" and t is not None and t.name not in _TEXT_ARGS:
            msg = f"PRINTF: %{conv} of a {t} is not supported yet"
            raise c.fail(msg)
    slot = {u: n for n, u in enumerate(used)}
    for p in pieces:
        if not isinstance(p, str) and p[4] >= 0:
            p[4] = slot[(p[4], p[0])]
    rendered = [_printf_argument(conv, args[i]) for i, conv in used]
    fast = vectorized(pieces, rendered)
    if fast is not None:
        return exp.Var(this=fast)
    plan = java_format.plan_json(pieces, [{conv: kind} for (_, conv), (kind, _) in zip(used, rendered)])
    f = _printf_function(len(used))
    return exp.Var(this=f"{f.name}({', '.join([sql_string(plan), *(text for _, text in rendered)])})")


# -- JSON_QUOTE / JSON_UNQUOTE -----------------------------------------------------------------
_ESCAPES = {'"': '\\"', "\\": "\\\\", "/": "\\/", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r",
            "\t": "\\t"}


def _quote(s: str) -> str:
    """Flink's JSON_QUOTE: a JSON string literal, control and non-ASCII characters as u-escapes."""
    body = []
    for ch in s:
        if ch in _ESCAPES:
            body.append(_ESCAPES[ch])
        elif ord(ch) < 0x20 or ord(ch) > 0x7E:
            # Flink formats String.codePointAt(i) of each UTF-16 unit i: a character beyond the BMP
            # gives its code point (5 or 6 hex digits), then its low surrogate.
            units = _utf16(ch)
            body.append(f"\\u{ord(ch):04x}" + "".join(f"\\u{u:04x}" for u in units[1:]))
        else:
            body.append(ch)
    return '"' + "".join(body) + '"'


def _utf16(ch: str) -> list[int]:
    """The UTF-16 code units of a character (Java strings are UTF-16)."""
    b = ch.encode("utf-16-be")
    return [int.from_bytes(b[i:i + 2], "big") for i in range(0, len(b), 2)]


def _unquote(s: str) -> str:
    """Flink's JSON_UNQUOTE: the string a JSON string literal stands for; other text as it is."""
    if len(s) < 2 or not (s.startswith('"') and s.endswith('"')):
        return s
    try:
        value = json.loads(s)
    except ValueError:
        return s
    return value if isinstance(value, str) else s


scalar("JSON_QUOTE", group="json", sig=((S,),), result=STRING)(python_call(
    "JSON_QUOTE", lambda a: rowwise(_quote, (a,), pa.string()), ("VARCHAR",), "VARCHAR"))
scalar("JSON_UNQUOTE", group="json", sig=((S,),), result=STRING,
       nulls="NULL if the argument is NULL; text that is not a JSON string literal is returned as it is")(
    python_call("JSON_UNQUOTE", lambda a: rowwise(_unquote, (a,), pa.string()), ("VARCHAR",), "VARCHAR"))


# -- INET_ATON / INET_NTOA ---------------------------------------------------------------------
_DIGITS = re.compile(r"[0-9]+")  # ASCII digits only, as Flink reads the bytes


def _aton(s: str) -> int | None:
    """The address of an IPv4 text in Flink 2.3's forms, None if it is none.

    ``a`` (a itself), ``a.b`` (a.0.0.b), ``a.b.c`` (a.b.0.c) and ``a.b.c.d``, every part 0-255 in
    ASCII digits: Flink 2.3's ``InetAtonFunction`` bytecode checks each part against 255 as it reads
    it (INET_ATON('42') is 42, INET_ATON('16909060') NULL; its later source takes any 32-bit ``a``).
    """
    parts = s.split(".")
    if len(parts) > 4 or not all(_DIGITS.fullmatch(p) for p in parts):
        return None
    values = [int(p) for p in parts]
    if any(v > 255 for v in values):
        return None
    if len(values) == 1:  # the address itself (was NULL)
        return values[0]
    value = (values[0] << 24) | (values[1] << 16 if len(values) > 2 else 0)
    return value | (values[2] << 8 if len(values) == 4 else 0) | values[-1]


def _ntoa(n: int) -> str | None:
    if not 0 <= n <= 0xFFFFFFFF:
        return None
    return ".".join(str((n >> shift) & 0xFF) for shift in (24, 16, 8, 0))


scalar("INET_ATON", group="string", sig=((S,),), result=fixed("BIGINT"),
       nulls="NULL if the argument is NULL or not an IPv4 address (a.b.c.d, a.b.c, a.b or a, every "
             "part 0-255)")(python_call(
    "INET_ATON", lambda a: rowwise(_aton, (a,), pa.int64()), ("VARCHAR",), "BIGINT"))
scalar("INET_NTOA", group="string", sig=(("INTEGER",),), result=STRING,
       nulls="NULL if the argument is NULL or outside 0 .. 4294967295")(python_call(
    "INET_NTOA", lambda a: rowwise(_ntoa, (a,), pa.string()), ("BIGINT",), "VARCHAR"))

