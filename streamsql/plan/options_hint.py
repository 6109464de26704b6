"""Dynamic table options: ``FROM t /*+ OPTIONS('k' = 'v') */``, as Flink's OPTIONS hint.

Flink (``'table.dynamic-table-options.enabled'``, true by default) lets one reference of a table
add or override its options: the hint's options are laid over the table's WITH options and the
connector checks the result as if declared, so a bad key or value fails as it would in the DDL.
As PyFlink 2.3 does (``tests/compat/cases/options_hint_*``): within one ``OPTIONS`` a later key
wins; of several ``OPTIONS`` in one hint (``/*+ OPTIONS(...), OPTIONS(...) */``) the first wins;
the hint name is case-insensitive; on a view it is refused ("View ... cannot be enriched with new
options. Hints can only be applied to tables."); an empty or key-only ``OPTIONS`` is refused
("Hint [OPTIONS] only support non empty key value options"); another hint name on a table
("Hint: FOO should be registered in the HintStrategyTable"); a hint after a subquery or a second
hint comment after one table does not parse in Flink and is refused here.

The dialect's tokenizer keeps a table's hint as a comment of its :class:`~sqlglot.exp.Table`,
marked (:data:`~streamsql.sql.nodes.HINT_MARK`) and kept with the table's name even on a line
of its own (``Flink.Tokenizer.tokenize``). Where a hint may go is checked lexically
(``streamsql.plan.unsupported``); each hint is matched here to the table whose comment holds its
text (:func:`attach`), and its options recorded in that node's ``meta`` (:func:`options_of`); a
table with a hint that was never matched is refused by the planner rather than read without its
options (:func:`options_of`). A plain comment, ``/* OPTIONS(...) */``, is a comment, as in Flink.
"""

from __future__ import annotations

import re

from sqlglot import exp

from streamsql.core.errors import ConfigError, OptionError, SqlError
from streamsql.sql.nodes import HINT_MARK

#: The key of a table node's ``meta`` holding its hint's options.
META_KEY = "options_hint"
#: ... and the (line, column) of its ``/*+``.
AT_KEY = "options_hint_at"
#: Flink's switch (``TableConfigOptions.TABLE_DYNAMIC_TABLE_OPTIONS_ENABLED``).
ENABLED_KEY = "table.dynamic-table-options.enabled"
DISABLED = f"The 'OPTIONS' hint is allowed only when the config option '{ENABLED_KEY}' is set to true."
NOT_KEY_VALUE = "Hint [OPTIONS] only support non empty key value options"
MISPLACED = ('Encountered "/*+": an OPTIONS hint goes right after a table\'s name, once '
             "(FROM t /*+ OPTIONS('k' = 'v') */ AS x); a subquery cannot take one")

_NAME = re.compile(r"\s*([A-Za-z_][A-Za-z_0-9]*)\s*\(")
#: ``key = 'value'`` and what follows it; the key a string, a `quoted` or a plain identifier (Calcite's
#: hint options; an identifier keeps its case, as Flink's parser).
_PAIR = re.compile(r"\s*(?:'((?:[^']|'')*)'|`((?:[^`]|``)*)`|([A-Za-z_][A-Za-z_0-9$]*))"
                   r"\s*=\s*'((?:[^']|'')*)'\s*([,)])")
_STARTS = re.compile(r"\s*OPTIONS\s*\(", re.IGNORECASE)


def parse(body: str) -> dict[str, str]:
    """The options of a table hint's body (the comment's text between ``/*+`` and ``*/``).

    Raises:
        ValueError: with Flink's message, for a hint that is not ``OPTIONS``, an ``OPTIONS`` that
            is empty or not ``'key' = 'value'`` pairs, or text after the last hint.
    """
    hints: list[dict[str, str]] = []
    pos = 0
    while True:
        name = _NAME.match(body, pos)
        if name is None:
            raise ValueError(NOT_KEY_VALUE if hints else f"Cannot parse the hint /*+{body}*/")
        if name.group(1).upper() != "OPTIONS":
            msg = f"Hint: {name.group(1)} should be registered in the HintStrategyTable"
            raise ValueError(msg)
        pos = name.end()
        options: dict[str, str] = {}
        while True:
            pair = _PAIR.match(body, pos)
            if pair is None:
                raise ValueError(NOT_KEY_VALUE)
            string, quoted, plain, value, after = pair.groups()
            key = string.replace("''", "'") if string is not None else \
                quoted.replace("``", "`") if quoted is not None else plain
            options[key] = value.replace("''", "'")
            pos = pair.end()
            if after == ")":
                break
        hints.append(options)
        rest = body[pos:].lstrip()
        if not rest:
            break
        if not rest.startswith(","):
            msg = f"Cannot parse the hint /*+{body}*/"
            raise ValueError(msg)
        pos = len(body) - len(rest) + 1
    merged: dict[str, str] = {}
    for options in reversed(hints):  # the first OPTIONS wins, as Flink's
        merged.update(options)
    return merged


def hint_text(table: exp.Table) -> str | None:
    """The body of ``table``'s OPTIONS hint (its first ``/*+ OPTIONS(...) */``), or None.

    A plain comment (``/* OPTIONS(...) */``) is a comment, as in Flink.
    """
    return next((c[1:] for c in table.comments or () if c.startswith(HINT_MARK) and _STARTS.match(c[1:])),
                None)


def attach(tree: exp.Expression, hints: list[tuple[str, int, int]]) -> tuple[str, int, int] | None:
    """Record each hint's options on the table it follows (``meta[META_KEY]``).

    Args:
        tree: the statement the hints were found in.
        hints: ``(body, line, column)`` of each OPTIONS hint comment, in text order.

    Returns:
        None when every hint was recorded; else ``(message, line, column)`` of the first hint that
        does not parse (Flink's message) or follows no table (:data:`MISPLACED`), for the caller
        to raise at its position.
    """
    pending = list(hints)
    for table in tree.find_all(exp.Table):
        for comment in table.comments or ():
            index = next((i for i, h in enumerate(pending) if HINT_MARK + h[0] == comment), None)
            if index is None:
                continue
            body, line, col = pending.pop(index)
            try:
                table.meta[META_KEY] = parse(body)
            except ValueError as e:
                return str(e), line, col
            table.meta[AT_KEY] = (line, col)
    if pending:
        _, line, col = pending[0]
        return MISPLACED, line, col
    return None


def options_of(table: exp.Table) -> dict[str, str] | None:
    """The options of ``table``'s hint (None without one).

    Raises:
        SqlError: (unpositioned) for a hint-like comment that was never checked by :func:`attach`.
    """
    options = table.meta.get(META_KEY)
    if options is None and hint_text(table) is not None:
        raise SqlError("This OPTIONS hint was not checked (a view's text?); " + MISPLACED)
    return options


def checked(table: exp.Expression, sql: str | None, check) -> None:
    """Run ``check()`` (a connector's check of a hinted table's options), blaming the hint.

    A bad option that the hint gave (its key is the error's option, or is quoted in its message)
    is reported at that key in the hint, in the statement, rather than at the table's CREATE TABLE
    (which holds another value, or not the key at all) or nowhere.

    Raises:
        ConfigError: ``check``'s; an :class:`~streamsql.core.errors.OptionError` positioned in
            ``sql`` when the option is the hint's.
    """
    try:
        check()
    except ConfigError as e:
        options, at = table.meta.get(META_KEY), table.meta.get(AT_KEY)
        if sql is None or not options or at is None or isinstance(e, SqlError):
            raise
        message = e.message if isinstance(e, OptionError) else str(e)
        key = e.option if e.option in options else next((k for k in options if f"'{k}'" in message), None)
        if key is None:
            raise
        line, col, length = _key_position(sql, at, key)
        positioned = OptionError(message, sql, line, col, length)
        positioned.table, positioned.option, positioned.column = e.table, key, e.column
        raise positioned from None


def _key_position(sql: str, at: tuple[int, int], key: str) -> tuple[int, int, int]:
    """(line, column, length) of ``'key'`` in the hint that starts at ``at`` (else of its ``/*+``)."""
    lines = sql.split("\n")
    start = sum(len(ln) + 1 for ln in lines[:at[0] - 1]) + at[1] - 1
    end = sql.find("*/", start)
    quoted = "'" + key.replace("'", "''") + "'"
    found = sql.find(quoted, start, end if end >= 0 else len(sql))
    if found < 0:
        return at[0], at[1], 3
    line = sql.count("\n", 0, found) + 1
    return line, found - (sql.rfind("\n", 0, found) + 1) + 1, len(quoted)
