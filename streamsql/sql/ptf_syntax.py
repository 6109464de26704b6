"""The arguments of Flink 2.3's built-in process table functions TO_CHANGELOG and FROM_CHANGELOG.

``NAME(arg, ...)`` after the ``(``: each argument by position, in Flink's order
(:data:`~streamsql.sql.nodes.CHANGELOG_PARAMS`), or by name (``op => DESCRIPTOR(c)``), named ones
after positional ones as Calcite requires. The table argument is ``TABLE t`` (a table, view or
CTE name; Flink 2.3's parser refuses ``TABLE (SELECT ...)``, so does this one), with an optional
``PARTITION BY`` (kept for the planner, which refuses it as Flink does);
a descriptor is ``DESCRIPTOR(a, ...)``; any other argument is an expression. The planner
(:mod:`streamsql.plan.changelog_ptf`) checks what Flink's type inference checks.
"""

from __future__ import annotations

import typing as t

from sqlglot import exp
from sqlglot.tokens import TokenType

from streamsql.sql import nodes

#: Each parameter's type, as Flink's "Supported signatures" show them.
_TYPES = ("TABLE", "DESCRIPTOR", "MAP<STRING, STRING>", "DESCRIPTOR", "STRING")

if t.TYPE_CHECKING:
    from streamsql.sql.grammar import FlinkParser


def parse_changelog_call(p: FlinkParser, name: str) -> nodes.ChangelogCall:
    """Parse ``TO_CHANGELOG(...)`` / ``FROM_CHANGELOG(...)`` after the ``(`` (a FUNCTION_PARSERS hook).

    Raises:
        ParseError: an unknown parameter name (Flink 2.3 ignores one: refused here, see
            docs/queries.md), a parameter given twice, a positional argument after a named one, more
            arguments than parameters (Flink's ``No match found for function signature``), or
            ``TABLE (SELECT ...)`` (Flink's parser refuses it).
    """
    head = p._prev.token_type == TokenType.L_PAREN and p._tokens[p._index - 2]
    args: dict[str, t.Any] = {}
    index = 0
    named = False
    while p._curr and p._curr.token_type != TokenType.R_PAREN:
        token = p._curr
        if p._next and p._next.token_type == TokenType.FARROW:
            key = token.text.lower()
            if key not in nodes.CHANGELOG_PARAMS:
                p._refuse(f"Unknown parameter '{token.text}' for {name}; its parameters are "
                          f"{', '.join(nodes.CHANGELOG_PARAMS)}", token, token)
            p._advance(2)
            named = True
        else:
            if named:
                p.raise_error("A positional argument cannot follow a named one", token)
            if index >= len(nodes.CHANGELOG_PARAMS):
                signature = ", ".join(f"{k} => {t}" for k, t in zip(nodes.CHANGELOG_PARAMS, _TYPES))
                p._refuse(f"No match found for function signature {name} with more than "
                          f"{len(nodes.CHANGELOG_PARAMS)} arguments. Supported signatures are: "
                          f"{name}({signature})", token, token)
            key = nodes.CHANGELOG_PARAMS[index]
        if key in args:
            p._refuse(f"Argument '{key}' of {name} is given twice", token, token)
        index += 1
        args[key], partition = _argument(p)
        if partition:
            args["partition_by"] = partition
        if not p._match(TokenType.COMMA):
            break
    node = nodes.ChangelogCall(this=exp.var(name), **args)
    if head:
        node.this.update_positions(head)
    return node


def _argument(p: FlinkParser) -> tuple[t.Any, list[exp.Expr] | None]:
    """One argument's value (the table, a descriptor, or an expression) and a table's PARTITION BY keys."""
    if p._match(TokenType.TABLE):
        if p._match(TokenType.L_PAREN, advance=False):  # Flink 2.3's parser takes a name only
            p.raise_error('Encountered "(": TABLE takes the name of a table or view here (Flink\'s parser '
                          "refuses TABLE (SELECT ...)); name the query with a view or WITH")
        table = p._parse_table_name()
        table.meta["table_arg"] = True
        keys = None
        if p._match(TokenType.PARTITION_BY):
            wrapped = p._match(TokenType.L_PAREN, advance=False)
            keys = p._parse_wrapped_csv(p._parse_column) if wrapped else [p._parse_column()]
            if not keys or None in keys:
                p._incomplete("PARTITION BY")
        return table, keys
    descriptor = p._curr and p._curr.text.upper() == "DESCRIPTOR"
    if descriptor and p._next and p._next.token_type == TokenType.L_PAREN:
        token = p._curr
        p._advance(2)
        columns = p._parse_csv(p._parse_column)
        p._match_r_paren()
        return nodes.DescriptorArg(expressions=columns).update_positions(token), None
    return p._parse_disjunction(), None
