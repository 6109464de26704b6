"""From ``CREATE TABLE`` / ``CREATE VIEW`` trees to catalog entries, and back to DDL text.

:func:`table_def_from_create` checks what the grammar cannot: unique column names, a single
watermark and primary key that name declared columns, ``NOT ENFORCED`` keys and string
options. Errors point at the offending name in the statement.
"""

from __future__ import annotations

from collections.abc import Collection

from sqlglot import exp

from streamsql.core.catalog import PARTITION_TYPES, ColumnDef, TableDef, ViewDef, WatermarkDef
from streamsql.core.errors import SqlError
from streamsql.core.secrets import masked
from streamsql.core.types import SqlType, implicit_cast
from streamsql.sql import like as like_merge
from streamsql.sql.dialect import Flink
from streamsql.sql.nodes import MetadataColumnConstraint
from streamsql.sql.parser import error_at, values_query
from streamsql.sql.split import lexemes, line_col


def table_def_from_create(create: exp.Create, sql: str, base: TableDef | None = None,
                          query_columns: list[ColumnDef] | None = None) -> TableDef:
    """Build the catalog entry declared by a ``CREATE [TEMPORARY] TABLE`` statement.

    Args:
        create: the parsed statement (``create.kind == "TABLE"``).
        sql: the statement text, used for error positions and kept as ``TableDef.sql``.
        base: the table of its ``LIKE`` clause (see :func:`like_source`), merged as Flink's
            (:mod:`streamsql.sql.like`).
        query_columns: for ``CREATE TABLE ... AS SELECT``, the query's result columns (name and
            type), merged with the columns the statement declares as Flink 2.x's
            (:func:`_ctas_columns`); a PRIMARY KEY and a WATERMARK may name any of them.

    Returns:
        the table definition. Primary-key columns are NOT NULL, as in Flink. ``IF NOT
        EXISTS`` is not part of the definition: read ``create.args.get("exists")``.

    Raises:
        SqlError: for duplicate columns, an unknown type, a watermark or primary key on an
            unknown column, several watermarks or primary keys, an ENFORCED key, a non-string
            option (an option written twice keeps its last value, as Flink's), a LIKE merge
            that Flink refuses, and for
            a ``PARTITIONED BY`` column that is not a physical column, and column constraints
            other than NOT NULL / PRIMARY KEY /
            COMMENT (``CHECK``, ``DEFAULT``: unsupported, not ignored), and for a query after
            the options without ``query_columns`` (a SELECT with the AS missing is one), for a
            CTAS whose columns do not merge with its query's (Flink's messages), or with a LIKE
            clause.
    """
    schema = create.this
    query = create.expression
    if query is not None:  # sqlglot also takes the query without AS: never drop it silently
        name = schema.this if isinstance(schema, exp.Schema) else schema
        if query_columns is None:
            msg = ("CREATE TABLE ... AS SELECT is not supported here; create the table with its "
                   f"columns, then INSERT INTO {name.sql(Flink)} SELECT ...")
            raise error_at(query, msg, sql)
        check_ctas(create, sql)
    like = like_source(create)
    if like is not None and base is None:  # the caller resolves LIKE's table: never drop the clause
        msg = "CREATE TABLE ... LIKE needs its base table here; run it with StreamEnvironment.execute_sql"
        raise error_at(like.this, msg, sql)
    if not isinstance(schema, exp.Schema) and like is None and query_columns is None:
        msg = "CREATE TABLE needs a column list, e.g. CREATE TABLE t (a INT) WITH (...)"
        raise error_at(schema, msg, sql)
    partitioned = next((p for p in _properties(create) if isinstance(p, exp.PartitionedByProperty)), None)

    declared: list[tuple[ColumnDef, exp.Expr]] = []
    watermarks: list[exp.WatermarkColumnConstraint] = []
    keys: list[tuple[exp.Expr, list[exp.Identifier]]] = []
    names: list[exp.Identifier] = []  # CREATE TABLE t (b, a) AS SELECT a, b: the query's columns reordered
    for item in schema.expressions if isinstance(schema, exp.Schema) else []:
        if isinstance(item, exp.Identifier) and query_columns is not None:
            names.append(item)
        elif isinstance(item, exp.ColumnDef):
            declared.append((_column(item, sql, [c for c, _ in declared], keys), item.this))
        elif isinstance(item, exp.WatermarkColumnConstraint):
            watermarks.append(item)
        else:
            pk = item.find(exp.PrimaryKey)
            if pk is None:
                msg = f"Unsupported table constraint: {item.sql(Flink)}"
                raise error_at(item, msg, sql)
            _check_not_enforced(pk, sql)
            keys.append((pk, list(pk.expressions)))

    options = _options(create, sql)
    columns = [c for c, _ in declared] if query_columns is None else _ctas_columns(
        list(query_columns), declared, names, sql)
    watermark, primary_key = None, []
    if base is not None:
        how = like_merge.strategies(like, sql)
        columns = like_merge.merge_columns(base, declared, how, sql)
        watermark = like_merge.base_watermark(base, watermarks[0] if watermarks else None, how, sql)
        primary_key = like_merge.base_primary_key(base, keys[0][0] if keys else None, how, sql)
        options = like_merge.merge_options(base, options, _option_keys(create), how, sql)
    wm_columns = columns
    if base is not None:  # Flink types no inherited computed column when it checks a LIKE's own watermark
        own = {c.name.lower() for c, _ in declared}
        inherited = {c.name.lower() for c in base.columns if c.computed is not None} - own
        wm_columns = [c for c in columns if c.name.lower() not in inherited]
        if watermarks and watermarks[0].this.name.lower() in inherited:
            name = watermarks[0].this.name
            msg = (f"The rowtime attribute field '{name}' is not defined in the table schema: a computed "
                   "column of the LIKE base table cannot be this table's rowtime; declare it here, with "
                   "EXCLUDING GENERATED")
            raise error_at(watermarks[0].this, msg, sql)
    new_watermark = _watermark(watermarks, wm_columns, sql)
    if new_watermark is not None and watermark is not None:  # the base's, on another column
        msg = "A table can have only one WATERMARK definition"
        raise error_at(watermarks[0].this, msg, sql)
    watermark = new_watermark or watermark
    if keys and base is not None:
        key = [_resolve(i, columns, "PRIMARY KEY", sql).name for i in keys[0][1]]
        like_merge.check_key_columns(key, base, {c.name.lower() for c, _ in declared}, keys[0][0], sql)
    primary_key = _primary_key(keys, columns, sql) or primary_key
    partition_keys = _partition_keys(partitioned, columns, sql)
    if str(options.get("connector", "")).lower() == "filesystem":
        _check_partition_types(partitioned, columns, sql)
    if base is not None:
        inherited = like_merge.base_partition_keys(base, partitioned, how, sql)  # refuses both
        partition_keys = partition_keys or inherited

    td = TableDef(
        name=_table_name(schema.this if isinstance(schema, exp.Schema) else schema),
        columns=columns,
        options=options,
        watermark=watermark,
        primary_key=primary_key,
        partition_keys=partition_keys,
        temporary=any(isinstance(p, exp.TemporaryProperty) for p in _properties(create)),
        sql=sql,
        comment=next((p.this.name for p in _properties(create) if isinstance(p, exp.SchemaCommentProperty)),
                     None),
    )
    for name in td.primary_key:  # Flink makes primary-key columns NOT NULL
        col = td.column(name)
        if col is not None and col.type is not None:
            col.type = col.type.with_nullable(False)
    return td


def check_ctas(create: exp.Create, sql: str) -> None:
    """Refuse what a CREATE TABLE ... AS SELECT cannot have here (syntax only: no table is looked up).

    No AS before the query (sqlglot takes it without: a ';' gone missing after a CREATE TABLE), a
    list of bare column names mixed with definitions, a key or a watermark (Flink's parser takes
    names alone), a LIKE clause, TEMPORARY (Flink's words).
    """
    query = create.expression
    # the query's first node (walk() goes breadth first: a UNION's second SELECT may come first)
    # (not a hint's nodes: their positions are within the hint's own text)
    start = min((n.meta["start"] for n in query.walk() if n.meta.get("start") is not None
                 and not isinstance(n, exp.Hint) and n.find_ancestor(exp.Hint) is None), default=None)
    if start is not None:
        before = [lx for lx in lexemes(sql[:start]) if lx.kind not in ("ws", "comment")]
        while before and before[-1].text == "(":  # AS (SELECT ...) [UNION ...], AS VALUES (1), (2)
            before.pop()
        if before and before[-1].text.upper() == "VALUES":  # its first node is its first literal
            before.pop()
        if not before or before[-1].text.upper() != "AS":
            msg = ("A query right after CREATE TABLE needs AS: CREATE TABLE t WITH (...) AS SELECT ... "
                   "(or a ';' is missing before it)")
            raise error_at(query, msg, sql)
    schema = create.this
    items = schema.expressions if isinstance(schema, exp.Schema) else []
    if any(isinstance(i, exp.Identifier) for i in items):
        other = next((i for i in items if not isinstance(i, exp.Identifier)), None)
        if other is not None:
            msg = ("A CREATE TABLE ... AS SELECT column list either names the query's columns (in a new "
                   "order, no types) or defines columns; not both, and a list of names takes no PRIMARY "
                   "KEY or WATERMARK")
            raise error_at(other, msg, sql)
    like = like_source(create)
    if like is not None:  # Flink refuses LIKE in a CTAS too
        raise error_at(like.this, "CREATE TABLE ... AS SELECT does not support LIKE", sql)
    temporary = next((p for p in _properties(create) if isinstance(p, exp.TemporaryProperty)), None)
    if temporary is not None:  # Flink 2.3's parser (SqlValidateException), checked on PyFlink
        msg = "CREATE TABLE AS SELECT syntax does not support to create temporary table yet."
        raise error_at(schema.this if isinstance(schema, exp.Schema) else schema, msg, sql)


def _ctas_columns(query: list[ColumnDef], declared: list[tuple[ColumnDef, exp.Expr]],
                  names: list[exp.Identifier], sql: str) -> list[ColumnDef]:
    """The columns of a CTAS table: the query's merged with the declared ones, as Flink 2.x's.

    Names alone (``CREATE TABLE t (b, a) AS SELECT a, b``) put the query's columns in their order;
    they must name each exactly once. Declared columns the query lacks come first, in their order
    (physical ones are written NULL, so they cannot be NOT NULL; computed and metadata columns
    are as in any table); a declared physical column the query has keeps the query's position
    with the declared type, which the query's must cast to implicitly (:func:`implicit_cast`: no
    narrowing, no nullable into NOT NULL). Names match exactly, as Flink's: ``V`` is not ``v``,
    a second column there, refused here (our names are case-insensitive).

    Raises:
        SqlError: Flink's messages (``Incompatible types for sink column 'v' at position 1. ...``,
            ``Column 'x' has no default value and does not allow NULLs.``, ...), at the column.
    """
    if names:
        by_name = {c.name: c for c in query}
        if len(names) != len(query):
            msg = ("The number of columns in the column list must match the number of columns in the "
                   f"source schema: the list has {len(names)}, the query {len(query)} "
                   f"({', '.join(c.name for c in query)}).")
            raise error_at(names[0], msg, sql)
        out: list[ColumnDef] = []
        for ident in names:
            if ident.name not in by_name or by_name[ident.name] in out:
                what = "not found in" if ident.name not in by_name else "named twice for a column of"
                raise error_at(ident, f"Column '{ident.name}' {what} the source schema.", sql)
            out.append(by_name[ident.name])
        return out
    by_name = {c.name: c for c in query}
    folded = {c.name.lower(): c.name for c in query}
    new: list[ColumnDef] = []
    for pos, (col, ident) in enumerate(declared, start=1):
        src = by_name.get(col.name)
        if src is None and col.name.lower() in folded:  # Flink: a new column beside the query's
            msg = (f"Column '{col.name}' differs from the query's column '{folded[col.name.lower()]}' only "
                   "in case: Flink's CTAS adds it as a column of its own, which StreamSQL's names (case-"
                   "insensitive) cannot hold; rename it, or spell it as the query does to redefine that one")
            raise error_at(ident, msg, sql)
        if src is None:
            if col.computed is None and not col.virtual and col.type is not None and not col.type.nullable:
                msg = f"Column '{col.name}' has no default value and does not allow NULLs."
                raise error_at(ident, msg, sql)
            new.append(col)
        elif col.computed is not None or col.metadata_key is not None:
            kind = "Computed" if col.computed is not None else "Metadata"
            msg = (f"A column named '{col.name}' already exists in the source schema. {kind} columns "
                   "cannot overwrite columns from source.")
            raise error_at(ident, msg, sql)
        elif not implicit_cast(src.type, col.type):
            msg = (f"Incompatible types for sink column '{col.name}' at position {pos}. The source column "
                   f"has type '{src.type}', while the target column has type '{col.type}'.")
            raise error_at(ident, msg, sql)
        else:
            by_name[col.name] = col
    return new + [by_name[c.name] for c in query]


def like_source(create: exp.Create) -> exp.LikeProperty | None:
    """The ``LIKE base (options)`` clause of a CREATE TABLE, or None (``.this``: the base's name)."""
    return next((p for p in _properties(create) if isinstance(p, exp.LikeProperty)), None)


def view_def_from_create(create: exp.Create, sql: str) -> ViewDef:
    """Build the catalog entry declared by ``CREATE [TEMPORARY] VIEW v AS <query>``.

    Returns:
        the view definition; ``IF NOT EXISTS`` is ``create.args.get("exists")``.

    Raises:
        SqlError: a name twice in the view's column list (Flink's "Column `a` has been
            specified"), or a missing query. That the list names every column of the query is
            checked when the query is planned (:func:`check_view_columns`).
    """
    columns: list[str] = []
    target = create.this
    if isinstance(target, exp.Schema):
        for ident in target.expressions:
            if any(c.lower() == ident.name.lower() for c in columns):
                raise error_at(ident, f"Column `{ident.name}` has been specified", sql)
            columns.append(ident.name)
        target = target.this
    query = create.expression
    if isinstance(query, exp.Values):
        query = values_query(query)
    if not isinstance(query, exp.Query):
        msg = "CREATE VIEW needs AS <query>"
        raise error_at(target, msg, sql)
    temporary = any(isinstance(p, exp.TemporaryProperty) for p in _properties(create))
    return ViewDef(name=_table_name(target), query=query, temporary=temporary, sql=sql,
                   columns=tuple(columns))


def check_view_columns(create: exp.Create, view: ViewDef, query_columns: list[str], sql: str) -> None:
    """Fail unless ``view``'s column list (if any) names each of ``query_columns``, in order.

    Raises:
        SqlError: Flink's "VIEW definition and input fields not match" with both lists, at the
            view's column list.
    """
    if view.columns and len(view.columns) != len(query_columns):
        msg = (f"VIEW definition and input fields not match: Def fields: [{', '.join(view.columns)}]. "
               f"Input fields: [{', '.join(query_columns)}].")
        raise error_at(create.this.expressions[0], msg, sql)


def show_create_table(td: TableDef, mask: bool = True, unknown: Collection[str] = ()) -> str:
    """Flink-style DDL for a table, as ``SHOW CREATE TABLE`` prints it.

    Args:
        td: the table.
        mask: hide values as :func:`streamsql.core.secrets.hidden` says (False: the DDL as
            created, for ALTER TABLE).
        unknown: the option keys the table's connector does not know (their values hidden too).

    Returns:
        a ``CREATE [TEMPORARY] TABLE`` statement (no trailing ``;``) with backtick-quoted
        names, one column, watermark or key per line, column and table ``COMMENT``s where
        Flink puts them, and the options sorted by key (hidden values shown as ``'******'``,
        where Flink 2.3 prints every value in clear).
    """
    lines = [f"  {_column_sql(c)}" for c in td.columns]
    if td.watermark:
        expr = td.watermark.expr.sql(Flink, identify=True)
        lines.append(f"  WATERMARK FOR {_quote(td.watermark.column)} AS {expr}")
    if td.primary_key:
        lines.append(f"  PRIMARY KEY ({', '.join(map(_quote, td.primary_key))}) NOT ENFORCED")
    options = [f"  {_string(k)} = {_string(masked(k, v, unknown) if mask else v)}"
               for k, v in sorted(td.options.items())]
    temporary = "TEMPORARY " if td.temporary else ""
    name = ".".join(_quote(p) for p in td.name.split("."))
    body, with_ = ",\n".join(lines), ",\n".join(options)
    # Flink 2.3's places: ')', COMMENT, PARTITIONED BY and WITH each start a line
    comment = f"\nCOMMENT {_string(td.comment)}\n" if td.comment is not None else "\n"
    if td.partition_keys:
        keys = ", ".join(map(_quote, td.partition_keys))
        comment = f"{comment}PARTITIONED BY ({keys})\n"
    return f"CREATE {temporary}TABLE {name} (\n{body}\n){comment}WITH (\n{with_}\n)"


# --- helpers --------------------------------------------------------------------------------


def _properties(create: exp.Create) -> list[exp.Expr]:
    props = create.args.get("properties")
    return list(props.expressions) if props else []


def _table_name(table: exp.Expr) -> str:
    """The object's own name: ``t`` of ``cat.db.t`` (the catalog keeps where it lives)."""
    return table.name


def _column(item: exp.ColumnDef, sql: str, seen: list[ColumnDef], keys: list) -> ColumnDef:
    name = item.name
    if any(c.name.lower() == name.lower() for c in seen):
        msg = f"Duplicate column '{name}'"
        raise error_at(item.this, msg, sql)
    kind = item.args.get("kind")
    col = ColumnDef(name=name, type=None)
    nullable = True
    for constraint in item.constraints:
        c = constraint.args.get("kind")
        if isinstance(c, exp.ComputedColumnConstraint):
            col.computed = c.this
        elif isinstance(c, MetadataColumnConstraint):
            col.metadata_key = c.name if c.this else name
            col.virtual = bool(c.args.get("virtual"))
        elif isinstance(c, exp.NotNullColumnConstraint):
            nullable = bool(c.args.get("allow_null"))
        elif isinstance(c, exp.PrimaryKeyColumnConstraint):
            _check_not_enforced(c, sql, at=item.this)
            keys.append((c, [item.this]))
        elif isinstance(c, exp.CommentColumnConstraint):
            col.comment = c.this.name
        else:
            # Flink's column has a type, NULL / NOT NULL, PRIMARY KEY, COMMENT, AS or METADATA only:
            # a CHECK or DEFAULT would parse here and be ignored (rows not checked, no default)
            msg = f"Unsupported column constraint: {constraint.sql(Flink)}"
            raise error_at(constraint, msg, sql)
    if kind is not None:
        try:
            col.written = kind.sql(Flink)
            col.type = SqlType.parse(col.written)
        except SqlError as e:
            raise error_at(item.this, f"Column '{name}': {e.message}", sql) from e
        if not nullable:
            col.type = col.type.with_nullable(False)
    elif col.computed is None:
        msg = f"Column '{name}' needs a type (or AS <expression> for a computed column)"
        raise error_at(item.this, msg, sql)
    return col


def _check_not_enforced(pk: exp.Expr, sql: str, at: exp.Expr | None = None) -> None:
    options = [o.name if isinstance(o, exp.Expr) else str(o) for o in pk.args.get("options") or []]
    if not any(o.upper() == "NOT ENFORCED" for o in options):
        msg = "Flink supports only PRIMARY KEY ... NOT ENFORCED (the key is not checked on the data)"
        raise error_at(at or pk, msg, sql)


def _resolve(ident: exp.Expr, columns: list[ColumnDef], what: str, sql: str) -> ColumnDef:
    for c in columns:
        if c.name.lower() == ident.name.lower():
            return c
    known = ", ".join(c.name for c in columns)
    msg = f"{what} refers to unknown column '{ident.name}'; columns are: {known}"
    raise error_at(ident, msg, sql)


def _check_partition_types(partitioned: exp.Expr | None, columns: list[ColumnDef], sql: str) -> None:
    """Refuse a filesystem table's partition column of a type not in :data:`PARTITION_TYPES`.

    Raises:
        SqlError: at the PARTITIONED BY column (Flink 2.3 takes it and names its folders by a Java
            object's identity, ``t=[B@6c7195d0``, which no run reproduces).
    """
    if partitioned is None:
        return
    names = partitioned.this.expressions if isinstance(partitioned.this, exp.Schema) else [partitioned.this]
    for ident in names:
        col = next(c for c in columns if c.name.lower() == ident.name.lower())
        if col.type is not None and col.type.name.upper() not in PARTITION_TYPES:
            msg = (f"Partition column '{col.name}' of type {col.type} is not supported by the filesystem "
                   f"connector here: Flink 2.3 names its folders by a Java object's identity "
                   f"(a partition column is one of {', '.join(PARTITION_TYPES)})")
            raise error_at(ident, msg, sql)


def _partition_keys(partitioned: exp.Expr | None, columns: list[ColumnDef], sql: str) -> list[str]:
    """The columns of ``PARTITIONED BY (...)`` (none without the clause).

    Raises:
        SqlError: Flink's "Partition column 'x' not defined in the table schema. Available
            columns: ['a', 'b']" (at the name), or a column named twice.
    """
    if partitioned is None:
        return []
    names = [i for i in partitioned.this.expressions] if isinstance(partitioned.this, exp.Schema) else \
        [partitioned.this]
    out: list[str] = []
    for ident in names:
        col = next((c for c in columns if c.name.lower() == ident.name.lower()), None)
        if col is None or col.computed is not None or col.metadata_key is not None:
            available = ", ".join(f"'{c.name}'" for c in columns if c.is_physical)
            msg = (f"Partition column '{ident.name}' not defined in the table schema. "
                   f"Available columns: [{available}]")
            raise error_at(ident, msg, sql)
        if col.name in out:
            msg = f"Partition column '{ident.name}' is named twice"
            raise error_at(ident, msg, sql)
        out.append(col.name)
    return out


def _watermark(
    items: list[exp.WatermarkColumnConstraint], columns: list[ColumnDef], sql: str
) -> WatermarkDef | None:
    if not items:
        return None
    if len(items) > 1:
        msg = "A table can have only one WATERMARK definition"
        raise error_at(items[1].this, msg, sql)
    wm = items[0]
    col = _resolve(wm.this, columns, "WATERMARK FOR", sql)
    refused = col.type.watermark_refusal() if col.type is not None else None  # computed: when planned
    if refused is not None:
        raise error_at(wm.this, refused, sql)
    return WatermarkDef(column=col.name, expr=wm.expression)


def _primary_key(
    keys: list[tuple[exp.Expr, list[exp.Identifier]]], columns: list[ColumnDef], sql: str
) -> list[str]:
    if not keys:
        return []
    if len(keys) > 1:
        msg = "A table can have only one PRIMARY KEY"
        raise error_at(keys[1][1][0] if keys[1][1] else keys[1][0], msg, sql)
    names = [_resolve(ident, columns, "PRIMARY KEY", sql).name for ident in keys[0][1]]
    if len(set(n.lower() for n in names)) < len(names):
        msg = "PRIMARY KEY lists a column twice"
        raise error_at(keys[0][0], msg, sql)
    return names


def _option_keys(create: exp.Create) -> dict[str, exp.Expr]:
    """Each WITH option's key node, by key (for errors pointing at an option)."""
    return {p.this.name: p.this for p in _properties(create) if type(p) is exp.Property}


def _options(create: exp.Create, sql: str) -> dict[str, str]:
    options: dict[str, str] = {}
    for prop in _properties(create):
        if not isinstance(prop, exp.Property):
            # sqlglot's property parser takes e.g. PRIMARY KEY (...) NOT ENFORCED inside WITH (...),
            # where Flink's grammar has 'key' = 'value' pairs only: it was dropped unread
            where = " (a PRIMARY KEY goes in the column list)" if isinstance(prop, exp.PrimaryKey) else ""
            msg = f"WITH (...) takes only 'key' = 'value' options, not {prop.sql(Flink)}{where}"
            raise error_at(prop, msg, sql)
        if type(prop) is not exp.Property:
            continue  # TEMPORARY, LIKE, COMMENT, PARTITIONED BY: read where they mean something
        key, value = prop.this, prop.args.get("value")
        if not (isinstance(key, exp.Literal) and key.is_string):
            msg = f"Option keys must be quoted strings, e.g. 'connector' = 'kafka' (got {key.sql(Flink)})"
            raise error_at(key, msg, sql)
        if not isinstance(value, (exp.Literal, exp.Boolean)):
            msg = f"Option '{key.name}' must have a literal value such as '...' (got {value.sql(Flink)})"
            raise error_at(value, msg, sql)
        # a key written twice keeps its last value, as Flink's SqlCreateTable reads the pairs into a map
        options.pop(key.name, None)
        options[key.name] = value.name if isinstance(value, exp.Literal) else value.sql(Flink).lower()
    return options


def option_position(sql: str, key: str) -> tuple[int, int, int] | None:
    """Where the WITH option ``key`` is written in a CREATE TABLE's text.

    Returns:
        ``(line, column, length)`` of the quoted key (1-based, the quotes included), or None
        when the text has no ``'key' =`` (e.g. an option the table did not write itself). The
        last such pair is taken: WITH ends the statement, and a string compared with ``=`` in
        a computed column comes before it.
    """
    found = None
    pending = None  # the offset of a string lexeme spelling the key, until the next token
    for lx in lexemes(sql):
        if lx.kind in ("ws", "comment"):
            continue
        if pending is not None and lx.text == "=":
            found = pending
        pending = lx.start if lx.kind == "string" and lx.text[1:-1].replace("''", "'") == key else None
    if found is None:
        return None
    line, col = line_col(sql, found)
    return line, col, len(_string(key))


def metadata_position(sql: str, column: str) -> tuple[int, int, int] | None:
    """Where the metadata key of column ``column``, or else its name, is written in a CREATE TABLE's text.

    A format that cannot carry a column's type (``'avro'`` and a TIMESTAMP_LTZ, JSON and a MAP
    with INT keys) points at the column, as a bad metadata key points at the key.

    Returns:
        ``(line, column, length)`` (1-based) of the quoted key of ``METADATA FROM 'key'``, or of
        the column's name (a bare ``METADATA``, a physical column); None when the text has no
        such column.
    """
    from streamsql.sql.parser import parse_statement

    try:
        tree = parse_statement(sql)
    except SqlError:
        return None
    for col in tree.find_all(exp.ColumnDef):
        if col.name.lower() != column.lower():
            continue
        meta = col.find(MetadataColumnConstraint)
        err = error_at(col.this if meta is None else meta.this or col.this, "", sql)
        return None if err.line is None else (err.line, err.col, err.length)
    return None


def _quote(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def _string(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _column_sql(c: ColumnDef) -> str:
    comment = f" COMMENT {_string(c.comment)}" if c.comment is not None else ""
    if c.computed is not None:
        return f"{_quote(c.name)} AS {c.computed.sql(Flink, identify=True)}{comment}"
    text = f"{_quote(c.name)} {c.type.sql() if c.type else 'STRING'}"
    if c.metadata_key is not None:
        text += " METADATA" if c.metadata_key == c.name else f" METADATA FROM {_string(c.metadata_key)}"
        text += " VIRTUAL" if c.virtual else ""
    return text + comment
