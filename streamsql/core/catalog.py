"""The catalog: tables and views declared by DDL, with their schemas and connector options.

A :class:`TableDef` is what ``CREATE TABLE`` declares, as Flink's catalog holds it: physical
columns, computed columns (``c AS expr``), metadata columns (``ts TIMESTAMP_LTZ(3) METADATA
FROM 'timestamp'``), an optional watermark (``WATERMARK FOR col AS expr``), an optional primary
key (``PRIMARY KEY (...) NOT ENFORCED``) and the ``WITH (...)`` options.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlglot import exp

from streamsql.core.errors import SqlError
from streamsql.core.types import Field, Schema, SqlType


@dataclass
class ColumnDef:
    """One declared column.

    Attributes:
        name: column name as declared.
        type: the SQL type; for a computed column, the type inferred at planning (None before).
        computed: the expression of a computed column (``c AS expr``), else None.
        metadata_key: for ``METADATA [FROM 'key']``, the connector metadata key
            (defaults to the column name), else None.
        virtual: ``METADATA VIRTUAL`` — read on scan, never written by a sink.
        written: the type as the DDL writes it (``VARCHAR``, ``VARBINARY(3)``), where ``type``
            keeps only what StreamSQL computes with (``STRING``, ``BYTES``); None if not from DDL.
    """

    name: str
    type: SqlType | None
    computed: exp.Expression | None = None
    metadata_key: str | None = None
    virtual: bool = False
    written: str | None = field(default=None, compare=False)  # a spelling, not a different column

    @property
    def is_physical(self) -> bool:
        """True for a column that the format decodes/encodes (neither computed nor metadata)."""
        return self.computed is None and self.metadata_key is None


@dataclass
class WatermarkDef:
    """``WATERMARK FOR column AS expr``: the rowtime column and the watermark expression."""

    column: str
    expr: exp.Expression


@dataclass
class TableDef:
    """A table declared by ``CREATE TABLE`` (see module docstring)."""

    name: str
    columns: list[ColumnDef]
    options: dict[str, str]
    watermark: WatermarkDef | None = None
    primary_key: list[str] = field(default_factory=list)
    temporary: bool = False
    sql: str | None = None  # the CREATE statement as written, for SHOW CREATE TABLE

    def column(self, name: str) -> ColumnDef | None:
        """The declared column ``name`` (case-insensitive), or None."""
        for c in self.columns:
            if c.name.lower() == name.lower():
                return c
        return None

    @property
    def physical_schema(self) -> Schema:
        """Columns the format reads and writes, in declaration order."""
        return Schema([Field(c.name, c.type) for c in self.columns if c.is_physical])

    @property
    def metadata_columns(self) -> list[ColumnDef]:
        """Declared metadata columns, in declaration order."""
        return [c for c in self.columns if c.metadata_key is not None]

    @property
    def connector(self) -> str:
        """The ``'connector'`` option (lower-cased)."""
        return self.options.get("connector", "").lower()


@dataclass
class ViewDef:
    """A view declared by ``CREATE [TEMPORARY] VIEW name [(c1, c2, ...)] AS query``.

    ``columns``: the view's column list, naming the query's columns in order (empty: the query's
    own names), as Flink's ``CREATE VIEW``.
    """

    name: str
    query: exp.Expression
    temporary: bool = False
    sql: str | None = None
    columns: tuple[str, ...] = ()


class Catalog:
    """Tables and views by name (case-insensitive), in one in-memory database.

    Raises :class:`SqlError` for duplicates and unknown names, listing what exists.
    """

    def __init__(self) -> None:
        self._objects: dict[str, TableDef | ViewDef] = {}
        self.functions: dict[str, object] = {}
        """User-defined functions by upper-case name (``streamsql.functions.udf.UserFunction``)."""

    def add(self, obj: TableDef | ViewDef, if_not_exists: bool = False, replace: bool = False) -> None:
        """Register a table or view.

        Raises:
            SqlError: when the name exists and neither ``if_not_exists`` nor ``replace`` is set.
        """
        key = obj.name.lower()
        if key in self._objects and not replace:
            if if_not_exists:
                return
            kind = "Table" if isinstance(self._objects[key], TableDef) else "View"
            msg = f"{kind} '{obj.name}' already exists"
            raise SqlError(msg)
        self._objects[key] = obj

    def drop(self, name: str, if_exists: bool = False, kind: type | None = None) -> None:
        """Remove a table or view.

        Raises:
            SqlError: for an unknown name (unless ``if_exists``), or a kind mismatch.
        """
        obj = self._objects.get(name.lower())
        if obj is None:
            if if_exists:
                return
            self.get(name)  # raises with the list of known names
        if kind is not None and not isinstance(obj, kind):
            msg = f"'{name}' is not a {'table' if kind is TableDef else 'view'}"
            raise SqlError(msg)
        del self._objects[name.lower()]

    def get(self, name: str) -> TableDef | ViewDef:
        """The table or view called ``name``.

        Raises:
            SqlError: naming the unknown object and listing the known ones.
        """
        obj = self._objects.get(name.lower())
        if obj is None:
            known = ", ".join(sorted(o.name for o in self._objects.values())) or "none"
            msg = f"Table or view '{name}' not found; known tables and views: {known}"
            raise SqlError(msg)
        return obj

    def __contains__(self, name: str) -> bool:
        return name.lower() in self._objects

    def names(self) -> list[str]:
        """All table and view names, sorted."""
        return sorted(o.name for o in self._objects.values())

    def tables(self) -> list[TableDef]:
        """All tables (not views)."""
        return [o for o in self._objects.values() if isinstance(o, TableDef)]
