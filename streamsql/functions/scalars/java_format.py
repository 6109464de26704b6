r"""PRINTF as Flink 2.3 runs it: ``java.util.Formatter`` (``Locale.US``), NULL for any exception.

Flink's ``PrintfFunction`` hands the arguments over as its internal objects (a STRING as its text,
INT as Integer, BIGINT as Long, DOUBLE as Double, DECIMAL as ``DecimalData``, DATE as its Integer
day number ...) and answers NULL when the Formatter throws (an unknown conversion, a flag or a
precision the conversion does not take, a missing argument, an argument of the wrong kind). The
format is parsed while planning (:func:`parse`: the specifiers, and whether Java refuses it for
every row); each row is then formatted here (:func:`format_row`) from its arguments, rendered by
the caller as text (``kinds`` say how to read each one). The rules are Java's ``Formatter``:

- ``%s %S %b %B %c %C``: the text cut to the precision (UTF-16 code units), upper-cased by an
  upper-case conversion, padded with spaces to the width (left with ``-``); a NULL is ``null``
  (``false`` for ``%b``);
- ``%d %o %x %X``: flags ``- + space 0 , (`` (``o x`` take ``#`` and ``0`` only); a negative value
  in ``o x`` is its two's complement in its type's width (``%x`` of INT -7 is ``fffffff9``);
- ``%e %E %f %g %G``: the double's shortest decimal digits (``Double.toString``'s) rounded half up
  to the precision (``%.1f`` of -0.25 is ``-0.3``; of 1.0E300, 301 digits), ``-0.0`` signed;
- ``%%``, ``%n``; argument indexes ``2$`` and ``<``.

Not here (refused while planning): ``%h``, ``%a``, ``%t`` (Flink formats an internal object's hash,
a hexadecimal double, a date of a Long).
"""

from __future__ import annotations

import json
import re
from decimal import ROUND_HALF_UP, Decimal, localcontext
from functools import lru_cache

from streamsql.functions.scalars.utf16 import java_text

SPEC = re.compile(r"%(\d+\$|<)?([-#+ 0,(]*)(\d+)?(\.\d+)?([tT])?([a-zA-Z%])")
"""``java.util.Formatter``'s specifier: index, flags, width, precision, conversion."""

GENERAL, CHAR, INTEGRAL, FLOATING = "bBsS", "cC", "doxX", "eEfgG"
SUPPORTED = GENERAL + CHAR + INTEGRAL + FLOATING + "%n"


class Refused(Exception):  # noqa: N818  (Java's exception, which Flink turns into NULL)
    """The Formatter throws for this format or argument: PRINTF is NULL."""


def parse(fmt: str, nargs: int) -> list:
    """The pieces of ``fmt``: literal text, or ``[conv, flags, width, precision, arg index]``.

    Raises:
        Refused: Java refuses the format whatever the arguments (Flink: NULL on every row).
        ValueError: a conversion this engine does not run (``%h %a %t``...), refused while planning.
    """
    pieces: list = []
    pos, ordinary, last = 0, 0, -1
    for m in SPEC.finditer(fmt):
        if "%" in fmt[pos:m.start()]:
            raise Refused  # UnknownFormatConversionException
        if m.start() > pos:
            pieces.append(fmt[pos:m.start()])
        pos = m.end()
        index, flags, width, precision, time, conv = m.groups()
        if time or conv in "hHaA":
            raise ValueError(m.group(0))
        if conv not in SUPPORTED:
            raise Refused  # UnknownFormatConversionException
        if len(set(flags)) != len(flags):
            raise Refused  # DuplicateFormatFlagsException
        w = int(width) if width else -1
        p = int(precision[1:]) if precision else -1
        _check(conv, flags, w, p)
        if conv in "%n":
            pieces.append([conv, flags, w, p, -1])
            continue
        if index == "<":
            arg = last
        elif index:
            arg = int(index[:-1]) - 1
        else:
            arg, ordinary = ordinary, ordinary + 1
        if not 0 <= arg < nargs:
            raise Refused  # MissingFormatArgumentException
        last = arg
        pieces.append([conv, flags, w, p, arg])
    if "%" in fmt[pos:]:
        raise Refused
    if pos < len(fmt):
        pieces.append(fmt[pos:])
    return pieces


def _check(conv: str, flags: str, width: int, precision: int) -> None:
    """Java's checks of a specifier while it is parsed (``FormatSpecifier.check*``)."""
    if ("-" in flags or "0" in flags) and width == -1:
        raise Refused  # MissingFormatWidthException
    if ("-" in flags and "0" in flags) or ("+" in flags and " " in flags):
        raise Refused  # IllegalFormatFlagsException
    if conv == "n" and (flags or width != -1 or precision != -1):
        raise Refused
    if conv in "%" + CHAR + INTEGRAL and precision != -1:
        raise Refused  # IllegalFormatPrecisionException
    allowed = {"%": "-", "b": "-#", "s": "-#", "c": "-", "d": "-+ 0,(", "o": "-#0", "x": "-#0",
               "e": "-#+ 0(", "f": "-#+ 0,(", "g": "-+ 0,("}[conv.lower()] if conv != "n" else ""
    if not set(flags) <= set(allowed):
        raise Refused  # FormatFlagsConversionMismatchException
    if conv.lower() in "bs" and "#" in flags:
        raise Refused  # '#' needs a Formattable argument, which Flink never passes


def _justify(text: str, flags: str, width: int) -> str:
    """``appendJustified``: spaces up to ``width`` UTF-16 code units, on the left unless ``-``."""
    pad = width - _units(text)
    if pad <= 0:
        return text
    return text + " " * pad if "-" in flags else " " * pad + text


def _units(text: str) -> int:
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def _cut(text: str, precision: int) -> str:
    """``String.substring(0, precision)`` over UTF-16 code units (a cut character's half stays)."""
    if precision == -1 or precision >= _units(text):
        return text
    return text.encode("utf-16-le", "surrogatepass")[:2 * precision].decode("utf-16-le", "surrogatepass")


def _general(text: str, conv: str, flags: str, width: int, precision: int) -> str:
    text = _cut(text, precision)
    return _justify(text.upper() if conv.isupper() else text, flags, width)


def _group(digits: str) -> str:
    """US grouping of an integer part: a comma every three digits."""
    head = len(digits) % 3 or 3
    return ",".join([digits[:head]] + [digits[i:i + 3] for i in range(head, len(digits), 3)])


def _magnitude(sign: str, mag: str, tail: str, flags: str, width: int) -> str:
    """``leadingSign`` + ``localizedMagnitude`` (grouping, zero padding) + ``trailingSign``, justified."""
    if "," in flags:
        whole, _, frac = mag.partition(".")
        mag = _group(whole) + ("." + frac if "." in mag else "")
    if "0" in flags:
        mag = "0" * max(0, width - len(sign) - len(mag) - len(tail)) + mag
    return _justify(sign + mag + tail, flags, width)


def _signs(neg: bool, flags: str) -> tuple[str, str]:
    if neg:
        return ("(", ")") if "(" in flags else ("-", "")
    return ("+" if "+" in flags else " " if " " in flags else ""), ""


def _integral(v: int, bits: int, conv: str, flags: str, width: int) -> str:
    if conv == "d":
        lead, trail = _signs(v < 0, flags)
        return _magnitude(lead, str(abs(v)), trail, flags, width)
    if "+" in flags or " " in flags or "(" in flags:
        raise Refused  # only a BigInteger takes them in o and x
    u = v + (1 << bits) if v < 0 else v
    digits = format(u, "o" if conv == "o" else "x")
    prefix = ("0" if conv == "o" else "0x") if "#" in flags else ""
    if "0" in flags:
        digits = "0" * max(0, width - len(prefix) - len(digits)) + digits
    text = prefix + digits
    return _justify(text.upper() if conv == "X" else text, flags, width)


def _digits(v: float) -> Decimal:
    """The double's decimal value as Java's ``FloatingDecimal`` digits it (the shortest repr)."""
    return Decimal(repr(v))


def _floating(v: float, conv: str, flags: str, width: int, precision: int) -> str:
    with localcontext() as ctx:
        ctx.prec = 1100  # every digit of a double's decimal expansion, and a precision of up to 700
        return _floating_text(v, conv, flags, width, precision)


def _floating_text(v: float, conv: str, flags: str, width: int, precision: int) -> str:
    upper = conv.isupper()
    if v != v:
        return _justify("NAN" if upper else "NaN", flags, width)
    neg = v < 0 or (v == 0 and str(v).startswith("-"))  # Double.compare(v, 0.0) == -1
    lead, trail = _signs(neg, flags)
    if v in (float("inf"), float("-inf")):
        return _justify(lead + ("INFINITY" if upper else "Infinity") + trail, flags, width)
    d = abs(_digits(v))
    kind = conv.lower()
    if kind == "g":
        prec = 6 if precision == -1 else max(precision, 1)
        if d == 0:
            kind, precision = "f", prec - 1
        else:
            rounded = d.quantize(Decimal(1).scaleb(d.adjusted() - prec + 1), rounding=ROUND_HALF_UP)
            x = rounded.adjusted()
            kind, precision = ("e", prec - 1) if x < -4 or x >= prec else ("f", prec - 1 - x)
    prec = 6 if precision == -1 else precision
    if kind == "f":
        mag = f"{d.quantize(Decimal(1).scaleb(-prec), rounding=ROUND_HALF_UP):f}"
        if "#" in flags and prec == 0:
            mag += "."
        return _magnitude(lead, mag, trail, flags, width)
    if d == 0:
        mant, exp = "0" + ("." + "0" * prec if prec else ""), 0
    else:
        exp = d.adjusted()
        m = (d.scaleb(-exp)).quantize(Decimal(1).scaleb(-prec), rounding=ROUND_HALF_UP)
        if m >= 10:  # rounding carried into another digit: 9.99 -> 10.0
            exp, m = exp + 1, (d.scaleb(-exp - 1)).quantize(Decimal(1).scaleb(-prec), rounding=ROUND_HALF_UP)
        mant = f"{m:f}"
    if "#" in flags and prec == 0:
        mant += "."
    suffix = ("E" if upper else "e") + ("-" if exp < 0 else "+") + f"{abs(exp):02d}"
    return _magnitude(lead, mant, trail + suffix, flags.replace(",", ""), width)


def _one(conv: str, flags: str, width: int, precision: int, kind: str, value: str | None) -> str:
    """One specifier over its argument: ``value`` is the caller's text of it (None: NULL)."""
    if value is None:
        text = "false" if conv in "bB" else "null"
        return _general(text, conv, flags, width, precision)
    if conv in GENERAL:
        return _general(value, conv, flags, width, precision)
    if kind == "bad":
        raise Refused  # IllegalFormatConversionException
    if conv in CHAR:
        cp = int(value)
        if not 0 <= cp <= 0x10FFFF:
            raise Refused  # IllegalFormatCodePointException
        return _general(chr(cp), conv, flags, width, -1)
    if conv in INTEGRAL:
        return _integral(int(value), int(kind), conv.lower() if conv != "X" else "X", flags, width)
    return _floating(float(value), conv, flags, width, precision)


@lru_cache(maxsize=256)
def _plan(plan: str) -> tuple[list, list]:
    doc = json.loads(plan)
    return doc["pieces"], doc["kinds"]


def format_row(plan: str, *values: str | None) -> str | None:
    """One row's PRINTF: ``plan`` is :func:`plan_json`'s text; None where Java throws."""
    pieces, kinds = _plan(plan)
    out = []
    try:
        for p in pieces:
            if isinstance(p, str):
                out.append(p)
            elif p[0] == "%":
                out.append(_justify("%", p[1], p[2]))
            elif p[0] == "n":
                out.append("\n")
            else:
                out.append(_one(p[0], p[1], p[2], p[3], kinds[p[4]][p[0]], values[p[4]]))
    except Refused:
        return None
    return java_text("".join(out).encode("utf-16-le", "surrogatepass"))


def plan_json(pieces: list, kinds: list[dict[str, str]]) -> str:
    """The plan :func:`format_row` reads: the pieces and, per argument and conversion, its kind.

    A kind is ``text`` (general conversions), ``bad`` (Java refuses this argument for the
    conversion unless it is NULL), the bit width of an integer (``8``, ``16``, ``32``, ``64``),
    or ``double``.
    """
    return json.dumps({"pieces": pieces, "kinds": kinds}, ensure_ascii=False)
