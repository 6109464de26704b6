"""``ALTER TABLE t <action>``: Flink 2.3's table changes, as a new ``CREATE TABLE`` of the table.

The table's DDL (:func:`~streamsql.sql.ddl.show_create_table`, unmasked) is parsed, the action
applied to its column list, watermark, primary key or options, and the result is created in the
table's place, so that every check of CREATE TABLE (computed columns, the watermark's column and
type, the key) runs on the new schema. Actions, as Flink's ``SqlAlterTable*``:

- ``ADD <item> [FIRST | AFTER c]`` / ``ADD (<item> [FIRST | AFTER c], ...)``: a physical, computed
  or metadata column, a ``WATERMARK FOR``, or a ``PRIMARY KEY (...) NOT ENFORCED``;
- ``MODIFY`` the same: replaces the column (in place, or moved), the watermark or the key;
- ``DROP c`` / ``DROP (c, ...)`` / ``DROP WATERMARK`` / ``DROP PRIMARY KEY``;
- ``RENAME c TO d`` (a column) and ``RENAME TO t2`` (the table);
- ``SET ('k' = 'v', ...)`` / ``RESET ('k', ...)``: the WITH options.

Messages are Flink's where it has one (``AlterSchemaConverter``).
"""

from __future__ import annotations

from sqlglot import exp
from sqlglot.tokens import Token, TokenType

from streamsql.core.errors import SqlError
from streamsql.sql.parser import _DIALECT, error_at, parse_statement
from streamsql.sql.split import line_col


def _tokens(text: str) -> list[Token]:
    return _DIALECT.tokenize(text)


def _at_token(tk: Token, message: str, sql: str) -> SqlError:
    """A SqlError underlining token ``tk`` of ``sql`` (a column name the action names)."""
    line, col = line_col(sql, tk.start)
    return SqlError(message, sql, line, col, tk.end - tk.start + 1)


def _split_items(tokens: list[Token]) -> list[list[Token]]:
    """``tokens`` split at their top-level commas."""
    items: list[list[Token]] = [[]]
    depth = 0
    for tk in tokens:
        if tk.token_type in (TokenType.L_PAREN, TokenType.L_BRACKET):
            depth += 1
        elif tk.token_type in (TokenType.R_PAREN, TokenType.R_BRACKET):
            depth -= 1
        elif tk.token_type == TokenType.COMMA and depth == 0:
            items.append([])
            continue
        items[-1].append(tk)
    return [i for i in items if i]


def _parse_items(sql: str, items: list[list[Token]]) -> list[tuple[exp.Expr, str | None, str | None, Token]]:
    """Each item as a schema node, with its position (``FIRST``/``AFTER``), column and first token.

    The items are parsed inside a CREATE TABLE laid over the ALTER statement's own text, so that
    errors point into it; the first token (a column's name) places the errors of the action.
    """
    out = []
    for item in items:
        where, after = None, None
        body = item
        if len(item) >= 2 and item[-1].text.upper() == "FIRST":
            where, body = "FIRST", item[:-1]
        elif len(item) >= 3 and item[-2].text.upper() == "AFTER":
            where, after, body = "AFTER", item[-1].text, item[:-2]
        head = "CREATE TABLE a ("
        start, end = body[0].start, body[-1].end + 1
        blank = "".join(c if c == "\n" else " " for c in sql[:start])
        fits = len(blank.split("\n")[0]) >= len(head)
        prefix = head + blank[len(head):] if fits else head + "\n" * blank.count("\n")
        create = parse_statement(prefix + sql[start:end] + ") WITH ('connector' = 'blackhole')")
        node = create.this.expressions[0]
        out.append((node, where, after, body[0]))
    return out


def _name(node: exp.Expr) -> str:
    return node.this.name if isinstance(node, (exp.ColumnDef, exp.WatermarkColumnConstraint)) else ""


def _index(items: list[exp.Expr], name: str) -> int | None:
    return next((i for i, it in enumerate(items) if isinstance(it, exp.ColumnDef) and
                 it.name.lower() == name.lower()), None)


def _is_key(node: exp.Expr) -> bool:
    kinds = (exp.ColumnDef, exp.WatermarkColumnConstraint)
    return not isinstance(node, kinds) and node.find(exp.PrimaryKey) is not None


def _place(items: list[exp.Expr], node: exp.Expr, where: str | None, after: str | None, at: exp.Expr,
           sql: str) -> None:
    if where is None:
        columns = [i for i, it in enumerate(items) if isinstance(it, exp.ColumnDef)]
        items.insert(columns[-1] + 1 if columns else 0, node)
    elif where == "FIRST":
        items.insert(0, node)
    else:
        i = _index(items, after or "")
        if i is None:
            msg = f"Referenced column `{after}` by 'AFTER' does not exist in the table."
            raise error_at(at, msg, sql)
        items.insert(i + 1, node)


def alter(create_sql: str, statement: exp.Expr, sql: str) -> tuple[str, str | None]:
    """The CREATE TABLE of the altered table, and its new name for ``RENAME TO`` (else None).

    ``statement``: the parsed ``ALTER TABLE`` (:class:`streamsql.sql.nodes.AlterTable`), whose
    ``action`` is the offset in ``sql`` where its action starts.

    Raises:
        SqlError: for an action Flink refuses (a column added twice, one modified or dropped that
            does not exist, a second watermark or key ...), or one not known.
    """
    create = parse_statement(create_sql)
    schema = create.this
    items: list[exp.Expr] = list(schema.expressions)
    props = create.args["properties"]
    action_tokens = [t for t in _tokens(sql) if t.start >= statement.args["action"]]
    if action_tokens and action_tokens[-1].token_type == TokenType.SEMICOLON:
        action_tokens = action_tokens[:-1]
    if not action_tokens:
        msg = "ALTER TABLE needs an action: ADD, MODIFY, DROP, RENAME, SET or RESET"
        raise SqlError(msg, sql)
    verb, rest = action_tokens[0].text.upper(), action_tokens[1:]
    at = statement.this
    new_name = None
    if verb in ("ADD", "MODIFY"):
        wrapped = bool(rest) and rest[0].token_type == TokenType.L_PAREN and (
            rest[-1].token_type == TokenType.R_PAREN)
        nodes = _parse_items(sql, _split_items(rest[1:-1] if wrapped else rest))
        for node, where, after, first in nodes:
            _apply_item(items, verb, node, where, after, first, sql)
    elif verb == "DROP":
        _drop(items, rest, _partition_keys(props), sql)
    elif verb == "RENAME":
        if rest and rest[0].text.upper() == "TO" and len(rest) >= 2:
            new_name = rest[-1].text
        elif len(rest) == 3 and rest[1].text.upper() == "TO":
            _not_a_partition_key(rest[0], _partition_keys(props), sql)
            i = _index(items, rest[0].text)
            if i is None:
                msg = f"The column `{rest[0].text}` does not exist in the base table."
                raise _at_token(rest[0], msg, sql)
            if _index(items, rest[2].text) is not None:
                msg = f"The column `{rest[2].text}` already existed in table schema."
                raise _at_token(rest[2], msg, sql)
            items[i].set("this", exp.to_identifier(rest[2].text, quoted=True))
        else:
            msg = "Expecting RENAME <column> TO <name> or RENAME TO <table name>"
            raise SqlError(msg, sql)
    elif verb in ("SET", "RESET"):
        _options(props, verb, rest, sql)
    else:
        msg = (f"Unsupported ALTER TABLE action '{action_tokens[0].text}': expecting ADD, MODIFY, DROP, "
               "RENAME, SET or RESET")
        raise error_at(at, msg, sql)
    schema.set("expressions", items)
    return create.sql(dialect=_DIALECT), new_name


def _apply_item(items: list[exp.Expr], verb: str, node: exp.Expr, where: str | None, after: str | None,
                first: Token, sql: str) -> None:
    """Apply one ADD / MODIFY item; its errors underline ``first``, the item's first token."""
    if isinstance(node, exp.WatermarkColumnConstraint) or _is_key(node):
        kind = exp.WatermarkColumnConstraint if isinstance(node, exp.WatermarkColumnConstraint) else None
        old = next((i for i, it in enumerate(items)
                    if (kind and isinstance(it, kind)) or (kind is None and _is_key(it))), None)
        what = "watermark strategy" if kind else "primary key constraint"
        if verb == "ADD" and old is not None:
            msg = (f"The base table has already defined the {what}. You might want to drop it before "
                   "adding a new one.")
            raise _at_token(first, msg, sql)
        if verb == "MODIFY" and old is None:
            msg = f"The base table does not define any {what}. You might want to add a new one."
            raise _at_token(first, msg, sql)
        if old is not None:
            items[old] = node
        else:
            items.append(node)
        return
    name = _name(node)
    i = _index(items, name)
    if verb == "ADD" and i is not None:
        msg = f"Try to add a column `{name}` which already exists in the table."
        raise _at_token(first, msg, sql)
    if verb == "MODIFY":
        if i is None:
            msg = f"Try to modify a column `{name}` which does not exist in the table."
            raise _at_token(first, msg, sql)
        if where is None:
            items[i] = node
            return
        del items[i]
    _place(items, node, where, after, node, sql)


def _partition_keys(props: exp.Properties) -> set[str]:
    """The lower-case names of the table's ``PARTITIONED BY`` columns (none without the clause)."""
    part = next((p for p in props.expressions if isinstance(p, exp.PartitionedByProperty)), None)
    if part is None:
        return set()
    names = part.this.expressions if isinstance(part.this, exp.Schema) else [part.this]
    return {n.name.lower() for n in names}


def _not_a_partition_key(tk: Token, keys: set[str], sql: str) -> None:
    """Refuse dropping or renaming a partition column, in Flink 2.3's words (``AlterSchemaConverter``).

    Raises:
        SqlError: at the column's name.
    """
    if tk.text.lower() in keys:
        msg = (f"Failed to execute ALTER TABLE statement. The column `{tk.text}` is used as the partition "
               "keys.")
        raise _at_token(tk, msg, sql)


def _drop(items: list[exp.Expr], rest: list[Token], partition_keys: set[str], sql: str) -> None:
    words = " ".join(t.text.upper() for t in rest).split()  # PRIMARY KEY may be one token
    if words == ["WATERMARK"]:
        i = next((i for i, it in enumerate(items) if isinstance(it, exp.WatermarkColumnConstraint)), None)
        if i is None:
            msg = "The base table does not define any watermark strategy."
            raise SqlError(msg, sql)
        del items[i]
        return
    if words == ["PRIMARY", "KEY"]:
        i = next((i for i, it in enumerate(items) if _is_key(it)), None)
        if i is None:
            msg = "The base table does not define any primary key."
            raise SqlError(msg, sql)
        del items[i]
        return
    punctuation = (TokenType.L_PAREN, TokenType.R_PAREN, TokenType.COMMA)
    for tk in (t for t in rest if t.token_type not in punctuation):
        _not_a_partition_key(tk, partition_keys, sql)
        i = _index(items, tk.text)
        if i is None:
            msg = f"The column `{tk.text}` does not exist in the base table."
            raise _at_token(tk, msg, sql)
        del items[i]


def _options(props: exp.Properties, verb: str, rest: list[Token], sql: str) -> None:
    inner = rest[1:-1] if rest and rest[0].token_type == TokenType.L_PAREN else rest
    current = list(props.expressions)
    for item in _split_items(inner):
        key = item[0].text
        if item[0].token_type != TokenType.STRING:
            msg = "ALTER TABLE SET/RESET takes quoted option keys: ('key' = 'value')"
            raise SqlError(msg, sql)
        current = [p for p in current if not (type(p) is exp.Property and p.this.name == key)]
        if verb == "RESET":
            if key.lower() == "connector":
                msg = "ALTER TABLE RESET does not support changing 'connector'"
                raise SqlError(msg, sql)
            continue
        if len(item) != 3 or item[1].token_type != TokenType.EQ or item[2].token_type != TokenType.STRING:
            msg = "ALTER TABLE SET takes ('key' = 'value', ...)"
            raise SqlError(msg, sql)
        current.append(exp.Property(this=exp.Literal.string(key), value=exp.Literal.string(item[2].text)))
    props.set("expressions", current)
