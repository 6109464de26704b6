"""The ``STATE_TTL`` query hint: a state TTL per input of a regular join or of a GROUP BY.

As Flink 1.18+ (FLIP-373): ``SELECT /*+ STATE_TTL('o' = '1d', 'c' = '12h') */ ... FROM orders o
JOIN customers c ON ...`` keeps the join's rows of ``o`` for a day and those of ``c`` for 12
hours; ``SELECT /*+ STATE_TTL('orders' = '1h') */ k, COUNT(*) FROM orders GROUP BY k`` keeps the
GROUP BY's accumulators for an hour. A key names a direct input of a join or of the GROUP BY of
the hinted SELECT (its alias, else its table name; a subquery by its alias); the input of a
cascaded join that is itself a join has no name. A hinted TTL overrides ``'table.exec.state.ttl'``
for that operator (``'0 ms'``: never expire); an input without a key keeps the job's TTL. The hint
applies to its own SELECT only, not to subqueries or views below it.

Keys are case-sensitive, as on Flink 2.3 (checked there): ``'orders'`` does not name ``FROM Orders``,
``'O'`` does not name ``FROM Orders o``, and an aliased input is named by its alias only. A key that
names no input of a join or GROUP BY of its SELECT is refused, as Flink's ``ValidationException``
(``The options of following hints cannot match the name of input tables or views``); so is a value
that is not a duration, a key without a value (``STATE_TTL('o')``: "Invalid list options in
STATE_TTL hint") and, on a join or GROUP BY, an empty ``STATE_TTL()`` ("expecting at least one
key-value options specified"), with Flink's messages.

Functions:
    plan_hinted_select(planner, sel, plan): plan a SELECT, applying its hint to the operators.
    note_join(planner, node, left, right): record a join of the SELECT being planned.
    note_group_agg(planner, node, scope): record a GROUP BY of the SELECT being planned.
"""

from __future__ import annotations

from collections.abc import Callable

from sqlglot import exp

from streamsql.core.config import duration_ms
from streamsql.core.errors import ConfigError, SqlError
from streamsql.plan.lookup_hint import apply_lookup_hints, close_block, open_block, written_names
from streamsql.plan.nodes import GroupAggNode, PlanNode
from streamsql.plan.scope import Scope
from streamsql.sql.split import lexemes, line_col


def plan_hinted_select(planner, sel: exp.Select, plan: Callable[[exp.Select], tuple[PlanNode, Scope]]
                       ) -> tuple[PlanNode, Scope]:
    """``plan(sel)``, with the joins and GROUP BY it plans given the TTLs of ``sel``'s STATE_TTL hint.

    Raises:
        SqlError: a hint key that names no input of a join or GROUP BY of ``sel``, a value that is
            not a duration.
    """
    blocks = _blocks(planner)
    blocks.append([])
    open_block(planner)
    try:
        out = plan(sel)
    finally:
        block = blocks.pop()
        lookups = close_block(planner)
    hint = _hint_options(planner, sel)
    if hint is not None and block:
        _apply(planner, sel, hint, block)
    apply_lookup_hints(planner, sel, lookups, _fail)
    return out


def note_join(planner, node: PlanNode, left: Scope, right: Scope) -> None:
    """Record join ``node`` (inputs with scopes ``left`` and ``right``) for its SELECT's hint.

    A join the planner makes for a subquery (a side named ``__...``, e.g. a scalar subquery's
    LEFT join) is not the user's join and takes no hint.
    """
    blocks = _blocks(planner)
    internal = any(s.columns and all((c.qualifier or "").startswith("__") for c in s.columns)
                   for s in (left, right))
    if blocks and not internal:
        blocks[-1].append((node, (_name(left), _name(right))))


def note_group_agg(planner, node: GroupAggNode, scope: Scope) -> None:
    """Record GROUP BY ``node`` (over an input of scope ``scope``) for its SELECT's hint."""
    blocks = _blocks(planner)
    if blocks:
        blocks[-1].append((node, (_name(scope),)))


def _blocks(planner) -> list[list]:
    """The planner's stack of SELECTs being planned: per SELECT, its (operator, input names)."""
    return vars(planner).setdefault("_state_ttl_blocks", [])


def _name(scope: Scope) -> str | None:
    """The input's alias or table name: the one qualifier of its columns, else None (a join).

    The columns a subquery's join adds (qualifiers ``__...``) do not count.
    """
    quals = {c.qualifier for c in scope.columns if not (c.qualifier or "").startswith("__")}
    return next(iter(quals)) if len(quals) == 1 else None


def _hint_options(planner, sel: exp.Select) -> dict[str, tuple[int, exp.Expression]] | None:
    """``{key as written: (ttl in ms, the option's node)}`` of the SELECT's STATE_TTL hints.

    None without a STATE_TTL hint; ``{}`` for an empty ``STATE_TTL()`` (refused by :func:`_apply`).
    """
    hint = sel.args.get("hint")
    options: dict[str, tuple[int, exp.Expression]] | None = None
    for h in hint.expressions if hint is not None else []:
        if not (isinstance(h, exp.Anonymous) and str(h.this).upper() == "STATE_TTL"):
            continue
        options = options if options is not None else {}
        for option in h.expressions:
            if not (isinstance(option, exp.EQ) and isinstance(option.this, exp.Literal)
                    and isinstance(option.expression, exp.Literal)):
                _fail(planner, option.sql(), "Invalid list options in STATE_TTL hint, only support key-value "
                                             "options: an option is 'input' = 'duration', e.g. "
                                             "STATE_TTL('o' = '1d')")
            key, value = option.this.name, option.expression.name
            try:
                ms = duration_ms(value, f"STATE_TTL('{key}')")
            except ConfigError as e:
                _fail(planner, f"'{value}'", f"Invalid STATE_TTL hint: {e}")
            options[key] = (ms, option)
    return options


def _fail(planner, text: str, message: str, hint: str = "STATE_TTL") -> None:
    """Raise ``message`` at ``text`` inside the first ``hint`` hint that holds it (else at no position).

    Raises:
        SqlError: always.
    """
    sql = planner.sql
    for lx in lexemes(sql or ""):
        at = lx.text.find(text) if lx.kind == "comment" and hint in lx.text.upper() else -1
        if at >= 0:
            line, col = line_col(sql, lx.start + at)
            raise SqlError(message, sql, line, col, len(text))
    raise SqlError(message, sql)


def _apply(planner, sel: exp.Select, hint: dict[str, tuple[int, exp.Expression]], block: list) -> None:
    """Set each recorded operator's TTLs from ``hint``; refuse a key that names none of their inputs."""
    if not hint:
        _fail(planner, "STATE_TTL",
              "Invalid STATE_TTL hint, expecting at least one key-value options specified")
    written = written_names(sel)
    used: set[str] = set()
    for node, names in block:
        ttls = []
        for name in names:
            key = next((k for k in hint if name is not None and k.lower() == name and k in written), None)
            if key is not None:
                used.add(key)
            ttls.append(hint[key][0] if key is not None else None)
        node.state_ttl_ms = tuple(ttls) if len(ttls) > 1 else ttls[0]
    unused = [k for k in hint if k not in used]
    if unused:
        _, option = hint[unused[0]]
        keys = ", ".join(f"`{k}`" for k in unused)
        _fail(planner, f"'{option.this.name}'",
              f"The options of following hints cannot match the name of input tables or views: {keys} in "
              "`state_ttl` (a key is the alias or table name of an input of a join or GROUP BY of this "
              "SELECT)")
