"""Column resolution: which input column does ``t.col`` or ``col`` name?"""

from __future__ import annotations

import itertools
from dataclasses import KW_ONLY, dataclass, replace

from sqlglot import exp

from streamsql.core.errors import SqlError
from streamsql.core.types import SqlType
from streamsql.functions import python_functions


@dataclass(frozen=True)
class ScopeColumn:
    """A column visible to an expression.

    Attributes:
        qualifier: the table name or alias that may qualify it (lower case), or None.
        name: the column name as declared.
        internal: the column's name in the batches of the input edge.
        type: its SQL type.
        declared: the type a table's DDL declares (NOT NULL and lengths included) for a physical
            column read straight from the table, where nullability is certain; None for every
            column derived by the plan (TYPEOF refuses those).
        generated: a column the planner made (an aggregate's ``__agg0``, a group window's
            ``__ws``): only a :func:`generated_column` reference resolves to it, and such a
            reference to nothing else, so a user's column of the same name stays the user's.
        produced: for a metadata column, the type its source produces when it differs from
            ``declared`` only in nullability: what TYPEOF of the bare column gives (Flink drops
            that cast, and types any other expression over the column by ``declared``).
        folded: a VALUES column whose every cell is deterministic, seen by the Calc right over the
            VALUES: Flink's planner folds that Calc into the Values (``ValuesReduceRule``), so its
            expressions of the column are evaluated as of literals (Calcite's literal CAST cuts a
            timestamp on its wall clock: ``1969-12-31 23:59:59.999999999`` at precision 0 is
            ``23:59:59``, where a value's ``DateTimeUtils.truncate`` gives ``1970-01-01 00:00:00``).
    """

    qualifier: str | None
    name: str
    internal: str
    type: SqlType
    declared: SqlType | None = None
    _: KW_ONLY  # the flags below are named at every call: two merged branches once swapped them
    generated: bool = False
    produced: SqlType | None = None
    folded: bool = False

    def derived(self) -> ScopeColumn:
        """The same column with no declared type (e.g. one side of a join may become NULL), not folded."""
        return replace(self, declared=None, produced=None, folded=False)


#: ``Column.meta`` key marking a reference to a column the planner made (see ScopeColumn.generated).
GENERATED = "streamsql_generated"


def generated_column(name: str, table: str | None = None) -> exp.Column:
    """A reference to the planner's own column ``name`` (of qualifier ``table``), never a user's column.

    Flink allows any column name, ``__agg0`` included, so the planner's references are told from
    the user's by this mark, not by their names.
    """
    col = exp.column(name, table=table, quoted=True)
    col.meta[GENERATED] = True
    return col


def is_generated(col: exp.Expression) -> bool:
    """Whether ``col`` is a :func:`generated_column` reference (the mark survives resolution)."""
    return bool(col.meta.get(GENERATED))


def position_of(node: exp.Expression) -> tuple[int | None, int | None, int]:
    """(line, start column, length) of a node, from sqlglot token metadata.

    The node's own token when it has one (a keyword the parser recorded, a function name, a
    literal), else its first identifier, else any positioned token inside it (e.g. the
    ``'10'`` of ``INTERVAL '10' MONTH``); ``(None, None, 1)`` when nothing is positioned.
    """
    for sub in itertools.chain([node], node.find_all(exp.Identifier), node.walk()):
        meta = getattr(sub, "meta", None) or {}
        if "line" in meta:
            length = meta.get("end", 0) - meta.get("start", 0) + 1
            return meta["line"], meta["col"] - length + 1, length
    return None, None, 1


class Scope:
    """The columns an expression may reference, with error messages that list them."""

    def __init__(self, columns: list[ScopeColumn], sql: str | None = None, what: str = "input"):
        self.columns = columns
        self.sql = sql
        self.what = what

    def resolve(self, col: exp.Column) -> ScopeColumn:
        """The column ``col`` refers to.

        Raises:
            SqlError: unknown or ambiguous column, positioned at the reference, naming the
                table and listing its columns.
        """
        name = col.name
        qual = col.table.lower() if col.table else None
        generated = is_generated(col)
        cands = [c for c in self.columns if c.name.lower() == name.lower() and c.generated == generated
                 and (qual is None or c.qualifier == qual)]
        if len(cands) > 1:
            exact = [c for c in cands if c.name == name]
            cands = exact if len(exact) == 1 else cands
        if len(cands) == 1:
            return cands[0]
        line, colno, length = position_of(col)
        if not cands:
            if qual is not None and not any(c.qualifier == qual for c in self.columns):
                quals = sorted({c.qualifier for c in self.columns if c.qualifier})
                msg = (f"Unknown table or alias '{col.table}' in '{col.sql()}'; "
                       f"in scope: {', '.join(quals) or 'none'}")
            else:
                visible = [c for c in self.columns
                           if not c.generated and (qual is None or c.qualifier == qual)]
                # Calcite's words: an unqualified name is "not found in any table" (Nexmark q6's
                # rownum), a qualified one "not found in table 't'"; then what there is.
                where = f"table '{col.table}'" if qual is not None else "any table"
                owner = visible[0].qualifier if visible and len({c.qualifier for c in visible}) == 1 else None
                listing = ", ".join(c.name for c in visible)
                msg = (f"Column '{name}' not found in {where}; available columns"
                       f"{f' of table {owner!r}' if owner and qual is None else ''}: {listing}") \
                    if visible else f"Column '{name}' not found in {where}"  # SELECT user: Flink's words
        else:
            msg = f"Column '{name}' is ambiguous; qualify it with one of: " + ", ".join(
                sorted({c.qualifier or "?" for c in cands}))
        raise SqlError(msg, self.sql, line, colno, length)

    def resolve_path(self, col: exp.Column) -> tuple[ScopeColumn, list[str]]:
        """The column ``col`` starts from and the ROW fields it then reads, as Calcite resolves.

        ``t.c.f`` is field ``f`` of column ``c`` of table ``t`` when ``t`` qualifies a column
        ``c``, else ``c.f`` of column ``t``... (a table alias wins over a column). A plain name
        that is no column may be the field of exactly one ROW column (Flink's ROW types are
        ``PEEK_FIELDS_NO_EXPAND``: ``x`` reads ``p.x``).

        Returns:
            (the column, the field names in order; empty for a plain column reference).

        Raises:
            SqlError: as :meth:`resolve`, and for a field the ROW type does not have
                (``Column 'p.zz' not found``) or a field of a value that is not a ROW.
        """
        if is_generated(col):  # the planner's own column: no fields, no table to read
            return self.resolve(col), []
        parts = [p.name for p in col.parts]
        quals = {c.qualifier for c in self.columns if c.qualifier}
        if len(parts) >= 2 and parts[0].lower() in quals and len(parts) > 2:
            head = exp.column(parts[1], table=parts[0])
            return self._fields(col, self.resolve(head), parts[2:])
        if len(parts) >= 2 and parts[0].lower() not in quals:
            found = [c for c in self.columns if c.name.lower() == parts[0].lower() and not c.generated]
            if found:
                return self._fields(col, self.resolve(exp.column(parts[0])), parts[1:])
        if len(parts) == 1 and not any(c.name.lower() == parts[0].lower() and not c.generated
                                       for c in self.columns):
            peek = [c for c in self.columns if c.type.name == "ROW" and not c.generated
                    and c.type.field(parts[0]) is not None]
            if len(peek) == 1:
                return peek[0], [parts[0]]
            if len(peek) > 1:
                line, colno, length = position_of(col)
                msg = f"Column '{parts[0]}' is ambiguous; it is a field of: " + ", ".join(
                    c.name for c in peek)
                raise SqlError(msg, self.sql, line, colno, length)
        return self.resolve(col), []

    def _fields(self, col: exp.Column, base: ScopeColumn, fields: list[str]) -> tuple[ScopeColumn, list[str]]:
        t = base.type
        for i, f in enumerate(fields):
            found = t.field(f) if t.name == "ROW" else None
            if found is None:
                line, colno, length = position_of(col)
                path = ".".join([base.name, *fields[: i + 1]])
                where = f"table '{base.qualifier}'" if base.qualifier else self.what
                msg = (f"Column '{path}' not found in {where}" if t.name == "ROW" else
                       f"Cannot read field '{f}' of '{'.'.join([base.name, *fields[:i]])}' of type {t}")
                raise SqlError(msg, self.sql, line, colno, length)
            t = found[2]
        return base, fields

    def type_of(self, duckdb_sql: str) -> str:
        """The DuckDB type name of an expression over these columns (planning time only).

        Returns ``""`` when DuckDB cannot type it (the real compile reports the error). Typed in a
        cursor of its own of the process's database (:func:`~streamsql.functions.python_functions.cursor`:
        StreamSQL's functions known), not ``duckdb.sql``'s module connection, one shared by every
        thread (two jobs planned at once in the shell).
        """
        import pyarrow as pa

        seen, fields = set(), []
        for c in self.columns:
            if c.internal not in seen:
                seen.add(c.internal)
                fields.append(c.type.arrow_field(c.internal))
        empty = pa.schema(fields).empty_table()  # noqa: F841  (read by DuckDB by name)
        con = python_functions.cursor()
        try:
            return str(con.sql(f"DESCRIBE SELECT {duckdb_sql} FROM empty").fetchall()[0][1])
        except Exception:  # typing is best effort here; compilation reports real errors
            return ""
        finally:
            con.close()

    def renamed(self, names: list[str]) -> Scope:
        """The same columns (one name per column, in order) under new names: ``AS t(a, b)``."""
        cols = [replace(c, name=n) for c, n in zip(self.columns, names)]
        return Scope(cols, self.sql, self.what)

    def requalify(self, qualifier: str | None) -> Scope:
        """The same columns, all under one qualifier (a subquery or table alias)."""
        q = qualifier.lower() if qualifier else None
        return Scope([replace(c, qualifier=q) for c in self.columns], self.sql, self.what)

    def unfolded(self) -> Scope:
        """The same columns, none folded: above an operator Flink never folds."""
        return Scope([replace(c, folded=False) for c in self.columns], self.sql, self.what)
