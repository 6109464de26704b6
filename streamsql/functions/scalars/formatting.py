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

from streamsql.functions.python_functions import rowwise
from streamsql.functions.scalars.cast_string import flink_to_string
from streamsql.functions.scalars.registry import Arg, Call, fixed, python_call, scalar, sql_string

S = "STRING"
STRING = fixed("STRING")

# -- PRINTF -------------------------------------------------------------------------------------
_SPEC = re.compile(r"%(?P<flags>[-0+ ,#(]*)(?P<width>\d+)?(?:\.(?P<precision>\d+))?(?P<conv>[a-zA-Z%])")
_INTEGRAL = "dxXo"
_FLOATING = "feE"
_FLAGS = {"-", "0", "+", " "}


_STRING_ARGS = ("STRING", "TINYINT", "SMALLINT", "INT", "BIGINT", "FLOAT", "DOUBLE", "DECIMAL", "BOOLEAN",
                "DATE", "NULL")
_ACCEPTS = {"d": ("TINYINT", "SMALLINT", "INT", "BIGINT"), "f": ("FLOAT", "DOUBLE")}


def _printf_argument(conv: str, a: Arg) -> str | None:
    """DuckDB SQL of argument ``a`` ready for DuckDB's ``printf`` conversion ``conv``.

    None where Java's Formatter refuses the argument's type (Flink's PRINTF is then NULL):
    ``%d %x %o`` take integers, ``%f %e`` FLOAT or DOUBLE (Flink hands a DECIMAL over as its
    internal value, which Java does not format as a number).
    """
    t = a.type.name if a.type is not None else None
    accepts = _ACCEPTS["d" if conv in _INTEGRAL else "f"] if conv in _INTEGRAL + _FLOATING else None
    if accepts is not None and t not in (None, "NULL", *accepts):
        return None
    if conv in "sS" and t == "DATE":  # Flink formats a DATE's internal value: days since 1970-01-01
        return f"coalesce(CAST(({a.text} - DATE '1970-01-01') AS VARCHAR), 'null')"
    if conv in "sS":
        text = flink_to_string(a.text, a.type) or f"CAST({a.text} AS VARCHAR)"
        if a.type is not None and a.type.name == "BOOLEAN":
            text = f"lower({text})"  # Java's Boolean.toString
        text = f"coalesce({text}, 'null')"
        return f"upper({text})" if conv == "S" else text
    if conv in "bB":
        text = (f"CASE WHEN {a.text} IS NULL OR CAST({a.text} AS VARCHAR) = 'false' THEN 'false' "
                "ELSE 'true' END")
        return f"upper({text})" if conv == "B" else text
    if conv in _INTEGRAL:
        return f"CAST({a.text} AS BIGINT)"
    return f"CAST({a.text} AS DOUBLE)"


@scalar("PRINTF", group="string", sig=((S, "ANY..."), (S,)), result=STRING,
        differences="The format must be a literal; the conversions supported are %s %S %b %B %d %x %X %o "
                    "%f %e %E %% and %n, with the flags - 0 + and space, a width and a precision (others "
                    "are refused at planning); %s of a TIMESTAMP, BYTES or composite value is refused "
                    "(Flink formats its internal object).",
        nulls="NULL if the format is NULL or an argument's type does not fit its conversion (%d of a "
              "DOUBLE, %f of a DECIMAL: Java refuses it, Flink returns NULL); a NULL argument is written "
              "'null' (as Java: cut to the precision, 'NULL' for %S %X %E, padded with spaces to the width)")
def printf(c: Call) -> exp.Expression:
    """Java's ``String.format(format, args...)``."""
    fmt = c.literal(0, "the format")
    if fmt is None:
        return exp.Null()
    out, args, pos, i = [], [], 0, 1
    for m in _SPEC.finditer(fmt):
        out.append(fmt[pos:m.start()].replace("%", "%%"))
        pos = m.end()
        conv, flags = m.group("conv"), m.group("flags")
        if conv == "%":
            out.append("%%")
            continue
        if conv == "n":
            out.append("\n")
            continue
        if conv not in "sSbB" + _INTEGRAL + _FLOATING or not set(flags) <= _FLAGS:
            msg = f"PRINTF: the conversion {m.group(0)!r} is not supported yet"
            raise c.fail(msg)
        if i >= len(c.args):  # Java: MissingFormatArgumentException, which Flink answers with NULL
            return exp.Null()
        a = c.args[i]
        i += 1
        if conv in "sS" and a.type is not None and a.type.name not in _STRING_ARGS:
            msg = f"PRINTF: %{conv} of a {a.type} is not supported yet"
            raise c.fail(msg)
        text = _printf_argument(conv, a)
        if text is None:
            return exp.Null()
        width = m.group("width") or ""
        precision = f".{m.group('precision')}" if m.group("precision") else ""
        if conv in "sSbB":
            if precision:
                text = f"substr({text}, 1, {precision[1:]})"
            out.append(f"%{'-' if '-' in flags else ''}{width}s")
        else:
            numeric = f"%{flags}{width}{precision}{conv}"
            # Java formats a NULL argument as the text "null", cut to the precision and upper-cased
            # by an upper-case conversion (Formatter.print): '%5.2f' gives '   nu', '%X' 'NULL'
            null = "null"[:int(precision[1:])] if precision else "null"
            null = null.upper() if conv.isupper() else null
            text = f"coalesce(printf({sql_string(numeric)}, {text}), {sql_string(null)})"
            out.append(f"%{'-' if '-' in flags else ''}{width}s")
        args.append(text)
    out.append(fmt[pos:].replace("%", "%%"))
    fmt_sql = sql_string("".join(out))
    return exp.Var(this=f"(printf({', '.join([fmt_sql, *args])}))")


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

