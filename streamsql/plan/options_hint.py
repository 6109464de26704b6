"""Dynamic table options: ``FROM t /*+ OPTIONS('k' = 'v') */``, as Flink's OPTIONS hint.

Flink (``'table.dynamic-table-options.enabled'``, true by default) lets one reference of a table
add or override its options: the hint's options are laid over the table's WITH options and the
connector checks the result as if declared, so a bad key or value fails as it would in the DDL.
As PyFlink 2.3 does (``tests/compat/cases/options_hint_*``): within one ``OPTIONS`` a later key
wins; of several ``OPTIONS`` in one hint (``/*+ OPTIONS(...), OPTIONS(...) */``) the first wins;
the hint name is case-insensitive; on a view it is refused ("View ... cannot be enriched with new
options. Hints can only be applied to tables."); an empty or key-only ``OPTIONS`` is refused
("Hint [OPTIONS] only support non empty key value options"); a hint name Flink does not know
("Hint: FOO should be registered in the HintStrategyTable"); a hint after a subquery or a second
hint comment after one table does not parse in Flink and is refused here. The other hints Flink
knows (``LOOKUP``, ``BROADCAST``, ``STATE_TTL``, ...) are checked there as Flink checks them and
change nothing (:mod:`streamsql.plan.table_hints`).

The dialect's tokenizer keeps a table's hint as a comment of its :class:`~sqlglot.exp.Table`,
marked (:data:`~streamsql.sql.nodes.HINT_MARK`) and kept with the table's name even on a line
of its own (``Flink.Tokenizer.tokenize``). Where a hint may go is checked lexically
(``streamsql.plan.unsupported``); each hint is matched here to the table whose comment holds its
text (:func:`attach`), and its options recorded in that node's ``meta`` (:func:`options_of`); a
table with a hint that was never matched is refused by the planner rather than read without its
options (:func:`options_of`). A plain comment, ``/* OPTIONS(...) */``, is a comment, as in Flink.
"""

from __future__ import annotations

from sqlglot import exp

from streamsql.core.errors import ConfigError, OptionError, SqlError
from streamsql.plan.table_hints import check_table_hint, parse_hints
from streamsql.sql.nodes import HINT_MARK

#: The key of a table node's ``meta`` holding its hint's options.
META_KEY = "options_hint"
#: ... and the (line, column) of its ``/*+``.
AT_KEY = "options_hint_at"
#: The key of a table node's ``meta`` saying its hint was checked (:func:`attach`).
CHECKED_KEY = "table_hint_checked"
#: Flink's switch (``TableConfigOptions.TABLE_DYNAMIC_TABLE_OPTIONS_ENABLED``).
ENABLED_KEY = "table.dynamic-table-options.enabled"
DISABLED = f"The 'OPTIONS' hint is allowed only when the config option '{ENABLED_KEY}' is set to true."
MISPLACED = ('Encountered "/*+": a table hint goes right after a table\'s name, once '
             "(FROM t /*+ OPTIONS('k' = 'v') */ AS x); a subquery cannot take one")


def parse(body: str) -> dict[str, str] | None:
    """The options a table hint's body (the comment's text between ``/*+`` and ``*/``) lays over the table's.

    Every hint of the body is checked as Flink checks a hint after a table's name
    (:mod:`streamsql.plan.table_hints`); only ``OPTIONS`` acts (the first one wins on a key).

    Returns:
        None when the body holds no ``OPTIONS`` hint.

    Raises:
        ValueError: with Flink's message, for text that is not a list of hints, a hint name
            Flink does not know, or options its strategy refuses (an empty ``OPTIONS``, ...).
    """
    merged: dict[str, str] | None = None
    for hint in parse_hints(body):
        check_table_hint(hint)
        if hint.name == "OPTIONS":
            merged = {**hint.kv, **(merged or {})}  # the first OPTIONS wins, as Flink's
    return merged


def hint_text(table: exp.Table) -> str | None:
    """The body of ``table``'s hint (its first ``/*+ ... */``), or None.

    A plain comment (``/* OPTIONS(...) */``) is a comment, as in Flink.
    """
    return next((c[1:] for c in table.comments or () if c.startswith(HINT_MARK) and c[1:].strip()), None)


def attach(tree: exp.Expression, hints: list[tuple[str, int, int]]) -> tuple[str, int, int] | None:
    """Record each hint's options on the table it follows (``meta[META_KEY]``).

    Args:
        tree: the statement the hints were found in.
        hints: ``(body, line, column)`` of each hint comment after a table's name, in text order.

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
                options = parse(body)
            except ValueError as e:
                return str(e), line, col
            table.meta[CHECKED_KEY] = True
            if options is not None:
                table.meta[META_KEY] = options
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
    if not table.meta.get(CHECKED_KEY) and hint_text(table) is not None:
        raise SqlError("This hint was not checked (a view's text?); " + MISPLACED)
    return table.meta.get(META_KEY)


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
