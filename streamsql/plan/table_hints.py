"""The hints after a table's name (``FROM t /*+ OPTIONS(...), LOOKUP(...) */``): syntax and checks.

Flink's parser (Calcite's) reads a comma-separated list of hints there, each ``NAME``, ``NAME()``,
``NAME(k = 'v', ...)`` (a key: a plain or quoted identifier, or a string), ``NAME(id, ...)`` or
``NAME('literal' or number, ...)``; anything else is a parse error (``Encountered ...``). Flink
then checks every hint against its hint strategy table, in order, the first failure refusing the
statement:

- a name it does not know (case-insensitive): "Hint: FOO should be registered in the
  HintStrategyTable";
- ``OPTIONS``: key-value options, at least one (the dynamic table options: the only hint that acts
  on a table, :mod:`streamsql.plan.options_hint`);
- ``LOOKUP`` and ``STATE_TTL``: their options, as in a ``SELECT /*+ ... */``
  (:func:`streamsql.plan.lookup_hint.lookup_options`, :func:`check_state_ttl`);
- ``BROADCAST``, ``SHUFFLE_HASH``, ``SHUFFLE_MERGE``, ``NEST_LOOP``, ``MULTI_JOIN``: at least one
  name; ``ALIAS``: exactly one; ``JSON_AGGREGATE_WRAPPED``: anything.

Checked on PyFlink 2.3 (``tests/compat/cases/table_hint_*``): a hint that passes and is not
``OPTIONS`` changes nothing — ``JOIN d /*+ LOOKUP('table' = 'd', <retry options>) */ FOR
SYSTEM_TIME AS OF ...`` plans no retry (the query hint after SELECT does), ``BROADCAST(zzz)`` names
any table, ``STATE_TTL`` sets no TTL — so here it is checked the same way and dropped.

Functions:
    parse_hints(body): the hints of a hint comment's text.
    check_table_hint(hint): Flink's check of one hint after a table's name.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from streamsql.core.config import duration_ms
from streamsql.core.errors import ConfigError
from streamsql.plan.lookup_hint import HintOptionError, lookup_options
from streamsql.sql.reserved import RESERVED

_TOKEN = re.compile(r"""\s*(?:(?P<string>'(?:[^']|'')*')|(?P<quoted>`(?:[^`]|``)*`)
                        |(?P<word>[A-Za-z_][A-Za-z0-9_$]*)|(?P<number>\d+(?:\.\d*)?)|(?P<punct>[(),=])
                        |(?P<other>\S))""", re.VERBOSE)
#: The hints that take a list of table names, at least one (Flink's ``NON_EMPTY_LIST_OPTION_CHECKER``).
_NAME_LISTS = ("BROADCAST", "SHUFFLE_HASH", "SHUFFLE_MERGE", "NEST_LOOP", "MULTI_JOIN")
#: Every hint Flink 2.3 knows (its hint strategy table), after a table's name or after SELECT.
REGISTERED = ("OPTIONS", "LOOKUP", "STATE_TTL", "ALIAS", "JSON_AGGREGATE_WRAPPED", *_NAME_LISTS)


@dataclass
class TableHint:
    """One hint: its name (upper case), key-value options (later keys win) or list options."""

    name: str
    written: str
    kv: dict[str, str] = field(default_factory=dict)
    items: list[str] = field(default_factory=list)
    literals: bool | None = None  # whether ``items`` are literals (else identifiers): never both

    def __str__(self) -> str:
        """As Calcite's ``RelHint`` in Flink's messages: ``BROADCAST``, ``BROADCAST(a=b)``."""
        opts = [*self.items, *(f"{k}={v}" for k, v in self.kv.items())]
        return self.written + (f"({', '.join(opts)})" if opts else "")


def _tokens(body: str) -> list[tuple[str, str]]:
    out = []
    for m in _TOKEN.finditer(body):
        if m.lastgroup is not None:
            out.append((m.lastgroup, m.group(m.lastgroup)))
    return out


def parse_hints(body: str) -> list[TableHint]:
    """The hints of ``body`` (a hint comment's text between ``/*+`` and ``*/``), in order.

    Raises:
        ValueError: text Calcite's hint grammar does not take (Flink: "SQL parse failed.
            Encountered ..."), with the token it stopped at.
    """
    toks = _tokens(body)
    pos = 0

    def fail(at: int) -> None:
        found = toks[at][1] if at < len(toks) else "*/"
        msg = f'Cannot parse the hint /*+{body}*/: encountered "{found}"'
        raise ValueError(msg)

    def identifier(at: int) -> str | None:
        kind, text = toks[at] if at < len(toks) else ("", "")
        if kind == "word" and text.upper() not in RESERVED:
            return text
        return text[1:-1].replace("``", "`") if kind == "quoted" else None

    hints: list[TableHint] = []
    while True:
        name = identifier(pos)
        if name is None:
            fail(pos)
        hint = TableHint(name.upper(), name)
        pos += 1
        if pos < len(toks) and toks[pos][1] == "(":
            pos = _options(toks, pos + 1, hint, identifier, fail)
        hints.append(hint)
        if pos == len(toks):
            return hints
        if toks[pos][1] != ",":
            fail(pos)
        pos += 1


def _options(toks, pos: int, hint: TableHint, identifier, fail) -> int:
    """Read the options after ``NAME(`` into ``hint``; the position after the ``)``."""
    def at(i: int) -> tuple[str, str]:
        return toks[i] if i < len(toks) else ("", "")

    if at(pos)[1] == ")":
        return pos + 1
    kv = at(pos + 1)[1] == "="
    while True:
        if kv:
            key = at(pos)[1][1:-1].replace("''", "'") if at(pos)[0] == "string" else identifier(pos)
            if key is None or at(pos + 1)[1] != "=" or at(pos + 2)[0] != "string":
                fail(pos)
            hint.kv[key] = at(pos + 2)[1][1:-1].replace("''", "'")
            pos += 3
        else:
            kind, text = at(pos)
            item = text[1:-1].replace("''", "'") if kind == "string" else \
                text if kind == "number" else identifier(pos)
            literal = kind in ("string", "number")
            if item is None or hint.literals not in (None, literal):
                fail(pos)
            hint.literals = literal
            hint.items.append(item)
            pos += 1
        if at(pos)[1] == ")":
            return pos + 1
        if at(pos)[1] != ",":
            fail(pos)
        pos += 1


def check_table_hint(hint: TableHint) -> None:
    """Flink's check of ``hint`` after a table's name (module docstring).

    Raises:
        ValueError: Flink's message.
    """
    name = hint.name
    if name not in REGISTERED:
        msg = f"Hint: {hint.written} should be registered in the HintStrategyTable"
        raise ValueError(msg)
    try:
        if name == "OPTIONS" and not hint.kv:
            msg = f"Hint [{hint.written}] only support non empty key value options"
            raise ValueError(msg)
        if name == "LOOKUP":
            if hint.items:
                msg = "Invalid list options in LOOKUP hint, only support key-value options."
                raise HintOptionError(msg)
            lookup_options(hint.kv)
        if name == "STATE_TTL":
            check_state_ttl(hint.kv, hint.items)
        if name in _NAME_LISTS and not hint.items:
            msg = (f"Invalid hint: {hint}, expecting at least one table or view specified in hint "
                   f"{hint.written}.")
            raise ValueError(msg)
        if name == "ALIAS" and len(hint.items) != 1:
            msg = "Invalid hint: , expecting 1 table or view name specified in hint ALIAS."  # sic, Flink's
            raise ValueError(msg)
    except HintOptionError as e:
        raise ValueError(e.message) from None


def check_state_ttl(kv: dict[str, str], items: list[str]) -> dict[str, int]:
    """The TTLs (ms) of a STATE_TTL hint's options, checked as Flink's hint strategy.

    Raises:
        HintOptionError: list options, none at all, or a value that is not a duration.
    """
    if items:
        msg = "Invalid list options in STATE_TTL hint, only support key-value options."
        raise HintOptionError(msg)
    if not kv:
        msg = "Invalid STATE_TTL hint, expecting at least one key-value options specified."
        raise HintOptionError(msg)
    ttls = {}
    for key, value in kv.items():
        try:
            ttls[key] = duration_ms(value, f"STATE_TTL('{key}')")
        except ConfigError as e:
            msg = f"Invalid STATE_TTL hint value: {e}"
            raise HintOptionError(msg, f"'{value}'") from None
    return ttls
