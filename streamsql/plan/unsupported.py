"""Constructs that parse but that StreamSQL does not run yet: rejected at their position.

sqlglot parses far more than the planner implements, and the planner reads only the parts of a
tree it knows. A clause it never reads would be dropped silently and the job would compute
something else: ``FOR SYSTEM_TIME AS OF`` outside a temporal join would read the whole table,
``INSERT OVERWRITE`` appends, a hint's options are never applied.
Every such construct is refused here, before planning, with what to do instead.

Functions:
    reject_ignored(tree, sql): raise for the first construct of ``tree`` listed below.
"""

from __future__ import annotations

from sqlglot import exp

from streamsql.core.errors import SqlError
from streamsql.core.types import SqlType
from streamsql.plan.options_hint import MISPLACED, attach
from streamsql.plan.scope import position_of
from streamsql.plan.table_hints import REGISTERED, check_table_hint, parse_hints
from streamsql.sql.nodes import TEXT_SPAN, ChangelogCall
from streamsql.sql.split import lexemes, line_col

# node type → (message, keyword whose first occurrence is reported; else the node's position).
_HINT = "SQL hints (/*+ ... */) are not supported yet; remove the hint"
_NODES: dict[type[exp.Expression], tuple[str, str | None]] = {
    exp.TableSample: ("TABLESAMPLE is not supported in a streaming query", "TABLESAMPLE"),
    exp.Collate: ("COLLATE is not supported; compare with LOWER()/UPPER() instead", "COLLATE"),
}
_STATE_TTL_PLACE = ("The STATE_TTL hint goes right after SELECT (SELECT /*+ STATE_TTL('t' = '1d') */ ...), "
                    "where it applies to the joins and GROUP BY of that SELECT")
#: Words after which an OPTIONS hint does not follow a table's name.
_KEYWORDS = frozenset({"SELECT", "FROM", "JOIN", "WHERE", "ON", "AS", "INTO", "TABLE", "BY", "AND", "OR",
                       "NOT", "SET", "VALUES", "WITH", "UNION", "ALL", "DISTINCT", "LATERAL", "HAVING"})


def reject_ignored(tree: exp.Expression, sql: str | None) -> None:
    """Refuse the first construct in ``tree`` (a query or an INSERT) that planning would ignore.

    Args:
        tree: the parsed statement or query.
        sql: the text ``tree`` was parsed from (positions are relative to it), or None.

    Raises:
        SqlError: naming the construct, positioned at it: a hint after ``SELECT`` Flink does not
            know or refuses (:func:`_check_query_hints`), ``FOR SYSTEM_TIME AS OF`` other
            than on a joined table,
            ``TABLESAMPLE``, ``COLLATE``, ``INSERT OVERWRITE``, TO_CHANGELOG / FROM_CHANGELOG
            outside FROM,
            ``INSERT ... PARTITION``, ``CAST`` to an unknown type, a binary literal with an odd
            number of hexadecimal digits (``X'ABC'``, Flink's "Binary literal string must contain
            an even number of hexits"), a string literal continued on the same line (``'a' 'b'``).
    """
    if sql is not None:
        hints = _table_hints(sql, tree.meta.get(TEXT_SPAN))
        _reject_same_line_strings(sql)
        failed = attach(tree, hints)
        if failed is not None:
            message, line, col = failed
            raise SqlError(message, sql, line, col, 3)
    if isinstance(tree, exp.Insert):
        if tree.args.get("overwrite"):
            refuse_at(sql, tree.this, "INSERT OVERWRITE is not supported on a streaming job; use INSERT INTO",
                  keyword="OVERWRITE")
        partition = tree.find(exp.Partition)
        if partition is not None:
            refuse_at(sql, partition, "INSERT INTO ... PARTITION is not supported (static partition values); "
                      "select the partition columns' values into the rows instead", keyword="PARTITION")
    for node in tree.walk():
        found = _NODES.get(type(node))
        if found is not None:
            refuse_at(sql, node, *found)
        if isinstance(node, exp.Hint) and not all(_taken(h) for h in node.expressions):
            refuse_at(sql, node, _HINT)
        if isinstance(node, (exp.Cast, exp.TryCast)):
            _check_cast_type(sql, node)
        if isinstance(node, ChangelogCall) and not isinstance(node.parent, (exp.Table, exp.TableFromRows)):
            # a table function is a FROM item; Calcite refuses any other call of it
            refuse_at(sql, node.this, f"{node.function} is a table function: call it in FROM "
                                      f"(SELECT ... FROM {node.function}(input => TABLE t, ...))")
        if isinstance(node, exp.HexString) and len(node.this) % 2:
            # Calcite's validator (Flink's): X'ABC' was read here as the bytes 0A BC
            refuse_at(sql, node, "Binary literal string must contain an even number of hexits")
        if isinstance(node, exp.Version) and not _joined_table(node):
            refuse_at(sql, node, "FOR SYSTEM_TIME AS OF is supported only on the table joined in a temporal "
                             "join (FROM o JOIN r FOR SYSTEM_TIME AS OF o.rowtime ON ...); read the table "
                             "without it", keyword="SYSTEM_TIME")


def _check_cast_type(sql: str | None, cast: exp.Cast) -> None:
    """A CAST to a type StreamSQL does not know, or a DECIMAL out of bounds, is refused here.

    (DuckDB's catalog or binder error was shown.)
    """
    target = cast.to.sql()
    try:
        SqlType.parse(target)
    except SqlError as e:
        word = target.split("(")[0].split()[0].upper() if target.strip() else None
        what = "an invalid type" if e.message.startswith("Decimal ") else "an unknown type"
        refuse_at(sql, cast, f"CAST to {what}: {e.message}", keyword=word)


def _joined_table(version: exp.Version) -> bool:
    """Whether ``version`` qualifies the table of a JOIN (a temporal join, planned in plan/joins.py)."""
    table = version.parent
    return isinstance(table, exp.Table) and isinstance(table.parent, exp.Join) and table.arg_key == "this"


def _taken(hint: exp.Expression) -> bool:
    """A hint after SELECT that is taken: one Flink knows (``NAME(...)`` or a bare ``NAME``).

    STATE_TTL (plan/state_ttl_hint.py), LOOKUP and the join hints (plan/lookup_hint.py) are
    planned; the others (OPTIONS, ALIAS, JSON_AGGREGATE_WRAPPED) act on nothing after SELECT, as
    in Flink 2.3. Their options were checked on the text (:func:`_check_query_hints`).
    """
    name = hint.this if isinstance(hint, exp.Anonymous) else hint.name if isinstance(hint, exp.Var) else None
    return isinstance(name, str) and name.upper() in REGISTERED


def _check_query_hints(sql: str, start: int, text: str) -> None:
    """Check the hints of the comment ``text`` (at ``start`` in ``sql``), right after SELECT, as Flink does.

    Flink's hint strategy table checks a hint the same wherever it is (:func:`check_table_hint`):
    a name it does not know, an ``OPTIONS`` without key-value options, a join hint naming no
    table, ``ALIAS`` without exactly one name are refused with its message. ``LOOKUP`` and
    ``STATE_TTL`` are checked where they are planned, positioned at the option at fault.

    Raises:
        SqlError: at the hint at fault (at the comment for text that is no list of hints).
    """
    body, at = text[3:-2], start
    try:
        for hint in parse_hints(body):
            at = start + 3 + max(body.find(hint.written), 0)
            if hint.name not in ("LOOKUP", "STATE_TTL"):
                check_table_hint(hint)
    except ValueError as e:
        line, col = line_col(sql, at)
        raise SqlError(str(e), sql, line, col, 3 if at == start else len(hint.written)) from None


def _table_hints(sql: str, span: tuple[int, int] | None = None) -> list[tuple[str, int, int]]:
    """``(body, line, column)`` of every hint after a table's name, in text order.

    With ``span`` (an INSERT of a statement set: where its text is in ``sql``), only the hints
    inside it; the other INSERTs' hints are theirs.

    sqlglot keeps a table's ``/*+ OPTIONS(...) */`` as a plain comment, so hints are found
    lexically; a hint right after SELECT is parsed into the tree (and planned), and checked here.

    Raises:
        SqlError: for a hint neither after SELECT (a query hint) nor after a table's name (a
            table hint), a second hint comment right after another (Flink's parser refuses it),
            a query hint Flink refuses (:func:`_check_query_hints`).
    """
    hints = []
    previous = before = None  # the last two significant lexemes
    after_hint = False
    for lx in lexemes(sql):
        if lx.kind == "comment" and lx.text.startswith("/*+"):
            body = lx.text[3:].lstrip().upper()
            after_select = previous is not None and previous.text.upper() == "SELECT"
            if after_select:  # a query hint: parsed into the tree too, where it is planned (_taken)
                _check_query_hints(sql, lx.start, lx.text)
                continue
            line, col = line_col(sql, lx.start)
            if _after_table_name(previous, before) and not after_hint:
                # a table hint: checked by options_hint.parse (plan/table_hints.py), as Flink's
                if span is None or span[0] <= lx.start < span[1]:
                    hints.append((lx.text[3:-2], line, col))
                after_hint = True
                continue
            message = _STATE_TTL_PLACE if body.startswith("STATE_TTL") else MISPLACED
            raise SqlError(message, sql, line, col, 3)
        if lx.kind not in ("ws", "comment"):
            previous, before = lx, previous
            after_hint = False
    return hints


def reject_hints(sql: str) -> None:
    """Refuse any hint comment of ``sql``, a statement that takes none.

    DDL other than a view's or a CTAS's query, SHOW, DESCRIBE, DROP, SET ...: Flink's parser
    refuses a hint there (``Encountered "/*+"``), where it was taken here for a comment
    (``CREATE TABLE t2 LIKE t /*+ OPTIONS(...) */`` copied ``t``'s options without the hint's).

    Raises:
        SqlError: at the first ``/*+``.
    """
    for lx in lexemes(sql):
        if lx.kind == "comment" and lx.text.startswith("/*+"):
            line, col = line_col(sql, lx.start)
            msg = ('Encountered "/*+": this statement takes no hint; a hint goes in a query or an INSERT, '
                   "as FROM t /*+ OPTIONS('k' = 'v') */")
            raise SqlError(msg, sql, line, col, 3)


def _after_table_name(previous, before) -> bool:
    """Whether ``previous`` is a table's name (``FROM t``, ``JOIN db.t``, ``INTO t``), not an alias.

    Nor the table of a window TVF (``TUMBLE(TABLE t /*+ ... */, ...)``) or of a CREATE TABLE:
    Flink's parser takes no hint there (``Encountered "/*+"``).
    """
    def name(lx) -> bool:
        return lx is not None and (lx.kind == "ident" or
                                   lx.kind == "word" and lx.text.upper() not in _KEYWORDS)
    alias = before is not None and (name(before) or before.text.upper() in ("AS", "TABLE"))
    return name(previous) and not alias


def _reject_same_line_strings(sql: str) -> None:
    """Refuse a string literal that continues the previous one on the same line (``'a' 'b'``).

    Calcite (Flink's parser) joins adjacent literals only across a line break (``'a'`` newline
    ``'b'`` is ``'ab'``) and refuses them on one line, a comment between or not: "String literal
    continued on same line". StreamSQL's parser joined them either way.
    """
    previous, newline = None, False
    for lx in lexemes(sql):
        if lx.kind in ("ws", "comment"):
            newline = newline or "\n" in lx.text or "\r" in lx.text
            continue
        if lx.kind == "string" and previous is not None and previous.kind == "string" and not newline:
            line, col = line_col(sql, lx.start)
            msg = "String literal continued on same line"
            raise SqlError(msg, sql, line, col, len(lx.text))
        previous, newline = lx, False


def refuse_at(sql: str | None, node: exp.Expression, message: str, keyword: str | None = None) -> None:
    """Raise SqlError(message) at the first ``keyword`` of ``sql`` (a word), else at ``node``."""
    line, col, length = position_of(node)
    if keyword is not None and sql is not None:
        for lx in lexemes(sql):
            if lx.kind == "word" and lx.text.upper() == keyword:
                (line, col), length = line_col(sql, lx.start), len(lx.text)
                break
    raise SqlError(message, sql, line, col, length)
