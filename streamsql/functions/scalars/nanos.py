"""The nanoseconds of a TIMESTAMP(7..9) / TIMESTAMP_LTZ(7..9) that a temporal function keeps, as Flink.

A temporal function is compiled over its timestamp arguments cut down to the microsecond
(:func:`~.registry.micro_args`: DuckDB's own cast of a ``TIMESTAMP_NS`` rounds). Most of
Flink's answers do not depend on the digits below the microsecond (YEAR .. SECOND, MILLISECOND,
MICROSECOND, TIMESTAMPDIFF, DATE_FORMAT up to six ``S``, UNIX_TIMESTAMP); two do, and get them
back here:

- ``EXTRACT(NANOSECOND FROM t)``: the nano-of-millisecond is part of it (Flink's
  ``DateTimeUtils.extractFromTimestamp``: ``millis % 1000 * 1_000_000 + nanoOfMillisecond``);
- ``TIMESTAMPADD(unit, n, t)``: a TIMESTAMP(9) plus whole units keeps its nanoseconds.

``DATE_FORMAT`` with a pattern that writes digits below the microsecond (``S`` seven to nine
times, ``n``, ``N``), or a pattern that is no literal, is refused over such a value rather than
written with zeros there.
"""

from __future__ import annotations

import re

from sqlglot import exp

from streamsql.functions.scalars.registry import Arg, Call, template


def _below_micro(value: str) -> str:
    """DuckDB SQL of the nanoseconds of ``value`` (a TIMESTAMP_NS or TIMESTAMPTZ_NS) below its microsecond."""
    return f"(((epoch_ns({value}) % 1000) + 1000) % 1000)"


def restore_nanos(call: Call, nanos: list[Arg], out: exp.Expression) -> exp.Expression:
    """``out`` (``call`` compiled over microseconds) with the digits of ``nanos`` it must keep.

    ``nanos``: the TIMESTAMP(7..9) arguments as given (nanoseconds); ``call`` has them cut.
    """
    if call.name.upper() == "DATE_FORMAT" and len(call.args) > 1:
        pattern = call.args[1].value() if call.args[1].is_literal else None
        if not isinstance(pattern, str) or re.search(r"S{7}|[nN]", re.sub(r"'[^']*'", "", pattern)):
            msg = (f"{call.name}: a pattern writing digits below the microsecond (S x 7..9, n, N), or one "
                   "that "
                   "is not a literal, is not supported for a TIMESTAMP(7..9) here (Flink writes its "
                   "nanoseconds); CAST the value to STRING, or the pattern to fewer S")
            raise call.fail(msg)
    if call.name.upper() == "EXTRACT" and (call.unit or "").upper() == "NANOSECOND":
        return template(f"({{0}} + {_below_micro('{1}')})", Arg(out, None), nanos[0])
    if call.name.upper() == "TIMESTAMPADD":
        ltz = nanos[-1].type.name == "TIMESTAMP_LTZ"
        rebuilt = (f"make_timestamp_ns(epoch_ns(CAST({{0}} AS {'TIMESTAMPTZ' if ltz else 'TIMESTAMP'})) "
                   f"+ {_below_micro('{1}')})")
        return template(f"timezone('UTC', {rebuilt})" if ltz else rebuilt, Arg(out, None), nanos[-1])
    return out
