"""The nanoseconds of a TIMESTAMP(7..9) / TIMESTAMP_LTZ(7..9) that a temporal function keeps, as Flink.

A temporal function is compiled over its timestamp arguments cut down to the microsecond
(:func:`~.registry.micro_args`: DuckDB's own cast of a ``TIMESTAMP_NS`` rounds). Most of
Flink's answers do not depend on the digits below the microsecond (YEAR .. SECOND, MILLISECOND,
MICROSECOND, TIMESTAMPDIFF, DATE_FORMAT up to six ``S``, UNIX_TIMESTAMP); two do, and get them
back here:

- ``EXTRACT(NANOSECOND FROM t)``: the nano-of-millisecond is part of it (Flink's
  ``DateTimeUtils.extractFromTimestamp``: ``millis % 1000 * 1_000_000 + nanoOfMillisecond``);
- ``TIMESTAMPADD(unit, n, t)``: a TIMESTAMP(9) plus whole units keeps its nanoseconds.
"""

from __future__ import annotations

from sqlglot import exp

from streamsql.functions.scalars.registry import Arg, Call, template


def _below_micro(value: str) -> str:
    """DuckDB SQL of the nanoseconds of ``value`` (a TIMESTAMP_NS or TIMESTAMPTZ_NS) below its microsecond."""
    return f"(((epoch_ns({value}) % 1000) + 1000) % 1000)"


def restore_nanos(call: Call, nanos: list[Arg], out: exp.Expression) -> exp.Expression:
    """``out`` (``call`` compiled over microseconds) with the digits of ``nanos`` it must keep.

    ``nanos``: the TIMESTAMP(7..9) arguments as given (nanoseconds); ``call`` has them cut.
    """
    if call.name.upper() == "EXTRACT" and (call.unit or "").upper() == "NANOSECOND":
        return template(f"({{0}} + {_below_micro('{1}')})", Arg(out, None), nanos[0])
    if call.name.upper() == "TIMESTAMPADD":
        ltz = nanos[-1].type.name == "TIMESTAMP_LTZ"
        rebuilt = (f"make_timestamp_ns(epoch_ns(CAST({{0}} AS {'TIMESTAMPTZ' if ltz else 'TIMESTAMP'})) "
                   f"+ {_below_micro('{1}')})")
        return template(f"timezone('UTC', {rebuilt})" if ltz else rebuilt, Arg(out, None), nanos[-1])
    return out
