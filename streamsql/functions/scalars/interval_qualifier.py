"""Calcite's interval qualifier with its precisions: ``INTERVAL '8000' YEAR(4)``, ``DAY(3) TO SECOND(3)``.

An interval literal's fields have precisions, as in Flink (Calcite's ``SqlIntervalQualifier``):
the leading field's (``YEAR(4)``, ``DAY(3) TO HOUR``; 2 digits when not written) and the fraction
of its seconds (``SECOND(2, 3)``, ``DAY TO SECOND(3)``). sqlglot read ``YEAR(4)`` as a call of
``YEAR()``; here the qualifier is read as Flink's parser reads it, its unit kept as sqlglot's plain
unit (``Var`` or ``IntervalSpan``, what the planner reads) and its precisions in the literal's
``meta[PRECISIONS]`` (written back by :func:`qualifier_sql`).

Flink validates the leading field against its precision: ``INTERVAL '100' HOUR`` is refused
(``Interval field value 100 exceeds precision of HOUR(2) field``), ``INTERVAL '100' HOUR(3)`` is
100 hours; :func:`qualifier_error` says so, and refuses precisions out of Calcite's and Flink's ranges.
"""

from __future__ import annotations

import re
import typing as t

from sqlglot import exp
from sqlglot.tokens import TokenType

UNITS = ("YEAR", "MONTH", "DAY", "HOUR", "MINUTE", "SECOND")
PRECISIONS = "interval_precisions"
"""``Interval.meta`` key: ``(leading precision, fractional second precision)``, each None if not written."""
DEFAULT_LEADING = 2
_LEADING = re.compile(r"\s*([+-]?)\s*(\d+)")


def parse_qualifier(parser: t.Any) -> tuple[exp.Expr, tuple[int | None, int | None]] | None:
    """``UNIT [(p [, f])] [TO UNIT [(f)]]`` at ``parser``'s position: (unit node, precisions).

    None (nothing read) when the next token is not one of :data:`UNITS`.
    """
    if parser._curr is None or parser._curr.text.upper() not in UNITS:
        return None
    lead = exp.var(parser._curr.text.upper())
    parser._advance()
    leading, fraction = _precisions(parser, 2 if lead.name == "SECOND" else 1)
    unit: exp.Expr = lead
    index = parser._index
    if parser._match_text_seq("TO"):
        if parser._curr is None or parser._curr.text.upper() not in UNITS:
            parser._retreat(index)
        else:
            end = exp.var(parser._curr.text.upper())
            parser._advance()
            if end.name == "SECOND":
                fraction = _precisions(parser, 1)[0]
            unit = exp.IntervalSpan(this=lead, expression=end)
    return unit, (leading, fraction)


def _precisions(parser: t.Any, most: int) -> tuple[int | None, int | None]:
    """``(p)`` or ``(p, f)`` (``most`` numbers at most) after a unit; (None, None) without them."""
    if not parser._match(TokenType.L_PAREN):
        return None, None
    numbers = []
    while len(numbers) < most and parser._curr is not None and parser._curr.token_type == TokenType.NUMBER:
        numbers.append(int(parser._curr.text))
        parser._advance()
        if not parser._match(TokenType.COMMA):
            break
    parser._match_r_paren()
    return (numbers + [None, None])[0], (numbers + [None, None])[1]


def qualifier_error(interval: exp.Interval) -> str | None:
    """Flink 2.3's refusal of a literal's qualifier or leading field, else None.

    In Flink's order: Calcite's precisions (the leading one 1..10, the fraction's 1..9: ``Interval
    leading field precision '11' out of range for INTERVAL YEAR(11)``); the leading field's value
    below 10 ** precision (its sign kept: ``Interval field value 100 exceeds precision of HOUR(2)
    field``; ``'099'`` passes); then Flink's own day-time types, of a leading precision up to 3
    (``DAY_INTERVAL_TYPES precision is not supported: 5``; a year-month one takes any).
    """
    unit = interval.args.get("unit")
    lead = unit.this if isinstance(unit, exp.IntervalSpan) else unit
    text = interval.this
    if not isinstance(lead, exp.Var) or lead.name.upper() not in UNITS or not isinstance(text, exp.Literal) \
            or not text.is_string:
        return None
    written, fraction = interval.meta.get(PRECISIONS, (None, None))
    qualifier = "INTERVAL " + qualifier_sql(interval, _plain(unit))
    if written is not None and not 1 <= written <= 10:
        return f"Interval leading field precision '{written}' out of range for {qualifier}"
    if fraction is not None and not 1 <= fraction <= 9:
        return f"Interval fractional second precision '{fraction}' out of range for {qualifier}"
    precision = written or DEFAULT_LEADING
    m = _LEADING.match(text.name)
    if m is not None and int(m.group(2)) >= 10 ** precision:
        value = int(m.group(2)) * (-1 if m.group(1) == "-" else 1)
        return f"Interval field value {value} exceeds precision of {lead.name.upper()}({precision}) field"
    if precision > 3 and lead.name.upper() not in ("YEAR", "MONTH"):
        return f"DAY_INTERVAL_TYPES precision is not supported: {precision}"
    return None


def _plain(unit: exp.Expr) -> str:
    """The qualifier's units without precisions: ``HOUR``, ``DAY TO SECOND``."""
    if isinstance(unit, exp.IntervalSpan):
        return f"{unit.this.name.upper()} TO {unit.expression.name.upper()}"
    return unit.name.upper()


def qualifier_sql(interval: exp.Interval, unit_sql: str) -> str:
    """The qualifier's text with the precisions written (``unit_sql``: sqlglot's text of the unit)."""
    leading, fraction = interval.meta.get(PRECISIONS, (None, None))
    if leading is None and fraction is None:
        return unit_sql
    unit = interval.args.get("unit")
    if isinstance(unit, exp.IntervalSpan):
        lead, end = unit.this.name.upper(), unit.expression.name.upper()
        tail = f"({fraction})" if fraction is not None and end == "SECOND" else ""
        return f"{lead}{_written(leading)} TO {end}{tail}"
    name = unit.name.upper()
    if name == "SECOND" and fraction is not None:
        return f"SECOND({leading or DEFAULT_LEADING}, {fraction})"
    return f"{name}{_written(leading)}"


def _written(precision: int | None) -> str:
    return "" if precision is None else f"({precision})"
