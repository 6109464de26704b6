"""The catalog: tables and views declared by DDL, with their schemas and connector options.

A :class:`TableDef` is what ``CREATE TABLE`` declares, as Flink's catalog holds it: physical
columns, computed columns (``c AS expr``), metadata columns (``ts TIMESTAMP_LTZ(3) METADATA
FROM 'timestamp'``), an optional watermark (``WATERMARK FOR col AS expr``), an optional primary
key (``PRIMARY KEY (...) NOT ENFORCED``) and the ``WITH (...)`` options.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from sqlglot import exp

from streamsql.core.errors import SqlError
from streamsql.core.types import Field, Schema, SqlType

#: The types a filesystem table's partition column may have here: those whose folder text is
#: Flink 2.3's (``connectors/partitions.py``); Flink names others' folders by a Java object's identity.
PARTITION_TYPES = ("STRING", "VARCHAR", "CHAR", "BOOLEAN", "TINYINT", "SMALLINT", "INT", "INTEGER",
                   "BIGINT", "DECIMAL", "FLOAT", "DOUBLE", "DATE", "TIME", "TIMESTAMP", "TIMESTAMP_LTZ")

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
        comment: the column's ``COMMENT '...'``, or None (shown by DESCRIBE, SHOW CREATE TABLE).
        derived: a computed column's type as Flink derives it, nullability included, where that is
            certain (``streamsql.functions.scalars.typeof``); None otherwise (DESCRIBE then shows
            ``type``, nullable).
    """

    name: str
    type: SqlType | None
    computed: exp.Expression | None = None
    metadata_key: str | None = None
    virtual: bool = False
    written: str | None = field(default=None, compare=False)  # a spelling, not a different column
    comment: str | None = field(default=None, compare=False)  # documentation, not a different column
    derived: SqlType | None = field(default=None, compare=False)  # derived from the others at planning

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
    comment: str | None = field(default=None, compare=False)  # the table's COMMENT '...'
    #: ``PARTITIONED BY (k1, k2)``: the partition columns, in that order (a filesystem table keeps
    #: each partition's rows in a ``k1=v1/k2=v2/`` folder; other connectors refuse them, as Flink)
    partition_keys: list[str] = field(default_factory=list)
    #: the options of the OPTIONS hint this table is read or written with, already laid over
    #: ``options`` (a hinted reference's copy, made by the planner; shown by EXPLAIN), or None
    hints: dict[str, str] | None = None

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
    namespace: tuple[str, str] | None = field(default=None, compare=False)
    """The (catalog, database) current when the view was created: its query's names resolve there
    (as Flink's, which expands them when it creates the view)."""


DEFAULT_CATALOG = "default_catalog"
"""The catalog a session starts in, as Flink's ``table.builtin-catalog-name``."""
DEFAULT_DATABASE = "default_database"
"""Its database, as Flink's ``table.builtin-database-name``."""
IN_MEMORY_DEFAULT_DATABASE = "default"
"""The database a ``CREATE CATALOG ... ('type' = 'generic_in_memory')`` starts with, as Flink's."""

Path = tuple[str, str, str]
"""A fully qualified object name: (catalog, database, object)."""


def table_parts(table: exp.Expression) -> tuple[str, ...]:
    """The name parts of ``t``, ``db.t`` or ``cat.db.t`` (a ``Table``), or ``(name,)`` of another node."""
    if isinstance(table, exp.Table):
        return tuple(p.name for p in table.parts)
    return (table.name,)


@dataclass
class _Database:
    name: str
    objects: dict[str, TableDef | ViewDef] = field(default_factory=dict)  # by lower-case name


@dataclass
class _NamedCatalog:
    name: str
    default_database: str
    databases: dict[str, _Database] = field(default_factory=dict)  # by lower-case name
    options: dict[str, str] = field(default_factory=dict)  # as created (DESCRIBE CATALOG EXTENDED)


class Catalog:
    """Tables and views by name, in Flink's namespace of catalogs and databases (in memory).

    A session starts in ``default_catalog.default_database``; ``CREATE CATALOG`` (type
    ``generic_in_memory``) and ``CREATE DATABASE`` add more, ``USE [CATALOG]`` moves the current
    one, and a name of one, two or three parts (``t``, ``db.t``, ``cat.db.t``) is resolved against
    the current catalog and database, as Flink's CatalogManager does. Names are case-insensitive.

    Raises :class:`SqlError` for duplicates and unknown names, in Flink's words where Flink has them.
    """

    def __init__(self) -> None:
        self._catalogs: dict[str, _NamedCatalog] = {}
        self.create_catalog(DEFAULT_CATALOG, DEFAULT_DATABASE)
        self.current_catalog = DEFAULT_CATALOG
        self.current_database = DEFAULT_DATABASE
        self.functions: dict[str, object] = {}
        """User-defined functions by upper-case name (``streamsql.functions.udf.UserFunction``)."""

    # -- catalogs and databases ---------------------------------------------------------------
    def catalog_names(self) -> list[str]:
        """Every catalog's name, sorted (``SHOW CATALOGS``)."""
        return sorted(c.name for c in self._catalogs.values())

    def database_names(self, catalog: str | None = None) -> list[str]:
        """The databases of ``catalog`` (None: the current one), sorted (``SHOW DATABASES [FROM c]``).

        Raises:
            SqlError: an unknown catalog (see ``_catalog``).
        """
        return sorted(d.name for d in self._catalog(catalog or self.current_catalog).databases.values())

    def create_catalog(self, name: str, default_database: str = IN_MEMORY_DEFAULT_DATABASE,
                       if_not_exists: bool = False, options: dict[str, str] | None = None) -> None:
        """Add an in-memory catalog holding one empty database, ``default_database``.

        ``options``: the catalog's options as created (``'type'`` ...), for ``DESCRIBE CATALOG``.

        Raises:
            SqlError: Flink's "Catalog c1 already exists." (unless ``if_not_exists``).
        """
        if name.lower() in self._catalogs:
            if if_not_exists:
                return
            msg = f"Catalog {name} already exists."
            raise SqlError(msg)
        self._catalogs[name.lower()] = _NamedCatalog(
            name, default_database, {default_database.lower(): _Database(default_database)},
            dict(options or {}))

    def describe_catalog(self, name: str, extended: bool) -> list[tuple[str, str | None]]:
        """Rows of ``DESCRIBE CATALOG [EXTENDED] name``, as Flink's.

        Name, type, comment (none here), and with EXTENDED each option but the type as
        ``option:<key>``, sorted by key.

        Raises:
            SqlError: Flink 2.3's "Cannot obtain metadata information from Catalog nope." for an
                unknown catalog, and for ``default_catalog`` too (Flink keeps no descriptor, its
                options, for the catalog it starts with: only a CREATE CATALOG's are described).
        """
        catalog = self._catalogs.get(name.lower())
        if catalog is None or not catalog.options:
            msg = f"Cannot obtain metadata information from Catalog {name}."
            raise SqlError(msg)
        options = catalog.options
        rows = [("name", catalog.name), ("type", options.get("type")), ("comment", None)]
        if extended:
            rows += [(f"option:{k}", v) for k, v in sorted(options.items()) if k != "type"]
        return rows

    def drop_catalog(self, name: str, if_exists: bool = False) -> None:
        """Remove a catalog and everything in it.

        Raises:
            SqlError: Flink's "Catalog c1 does not exist." or "Cannot drop a catalog which is
                currently in use."
        """
        if name.lower() not in self._catalogs:
            if if_exists:
                return
            msg = f"Catalog {name} does not exist."
            raise SqlError(msg)
        if name.lower() == self.current_catalog.lower():
            msg = "Cannot drop a catalog which is currently in use."
            raise SqlError(msg)
        del self._catalogs[name.lower()]

    def use_catalog(self, name: str) -> None:
        """Make ``name`` the current catalog, and its default database the current database.

        Raises:
            SqlError: Flink's "A catalog with name [nope] does not exist."
        """
        catalog = self._catalogs.get(name.lower())
        if catalog is None:
            msg = f"A catalog with name [{name}] does not exist."
            raise SqlError(msg)
        self.current_catalog, self.current_database = catalog.name, catalog.default_database

    def use_database(self, parts: tuple[str, ...]) -> None:
        """``USE db`` or ``USE cat.db``.

        Raises:
            SqlError: Flink's "A catalog with name [c] does not exist." or "A database with name
                [db] does not exist in the catalog: [cat]."
        """
        cat = parts[0] if len(parts) > 1 else self.current_catalog
        catalog = self._catalogs.get(cat.lower())
        if catalog is None:
            msg = f"A catalog with name [{cat}] does not exist."
            raise SqlError(msg)
        database = catalog.databases.get(parts[-1].lower())
        if database is None:
            msg = f"A database with name [{parts[-1]}] does not exist in the catalog: [{catalog.name}]."
            raise SqlError(msg)
        self.current_catalog, self.current_database = catalog.name, database.name

    def create_database(self, parts: tuple[str, ...], if_not_exists: bool = False) -> None:
        """``CREATE DATABASE [cat.]db``.

        Raises:
            SqlError: Flink's "Catalog c does not exist." or "Database db1 already exists in
                Catalog default_catalog." (unless ``if_not_exists``).
        """
        catalog = self._catalog(parts[0] if len(parts) > 1 else self.current_catalog)
        name = parts[-1]
        if name.lower() in catalog.databases:
            if if_not_exists:
                return
            msg = f"Database {name} already exists in Catalog {catalog.name}."
            raise SqlError(msg)
        catalog.databases[name.lower()] = _Database(name)

    def drop_database(self, parts: tuple[str, ...], if_exists: bool = False, cascade: bool = False) -> None:
        """``DROP DATABASE [IF EXISTS] [cat.]db [RESTRICT | CASCADE]`` (RESTRICT by default, as Flink).

        Raises:
            SqlError: Flink's "Database db1 does not exist in Catalog c." (unless ``if_exists``),
                "Database db1 in catalog c is not empty." (RESTRICT with tables or views in it) or
                "Cannot drop a database which is currently in use."
        """
        catalog = self._catalog(parts[0] if len(parts) > 1 else self.current_catalog)
        database = catalog.databases.get(parts[-1].lower())
        if database is None:
            if if_exists:
                return
            msg = f"Database {parts[-1]} does not exist in Catalog {catalog.name}."
            raise SqlError(msg)
        if (catalog.name.lower(), database.name.lower()) == (self.current_catalog.lower(),
                                                             self.current_database.lower()):
            msg = "Cannot drop a database which is currently in use."
            raise SqlError(msg)
        if database.objects and not cascade:
            msg = f"Database {database.name} in catalog {catalog.name} is not empty."
            raise SqlError(msg)
        del catalog.databases[database.name.lower()]

    def qualify(self, name: str | tuple[str, ...]) -> Path:
        """``t``, ``db.t`` or ``cat.db.t`` completed with the current catalog and database.

        Raises:
            SqlError: a name of more than three parts.
        """
        parts = (name,) if isinstance(name, str) else tuple(name)
        if len(parts) > 3:
            msg = f"'{'.'.join(parts)}' has more than three parts; write catalog.database.object"
            raise SqlError(msg)
        if len(parts) == 1:
            return self.current_catalog, self.current_database, parts[0]
        return (self.current_catalog, *parts) if len(parts) == 2 else parts

    @contextmanager
    def within(self, namespace: tuple[str, str] | None) -> Iterator[None]:
        """Resolve names in ``namespace`` (catalog, database) inside the block, e.g. a view's query."""
        saved = self.current_catalog, self.current_database
        if namespace is not None:
            self.current_catalog, self.current_database = namespace
        try:
            yield
        finally:
            self.current_catalog, self.current_database = saved

    def _catalog(self, name: str) -> _NamedCatalog:
        catalog = self._catalogs.get(name.lower())
        if catalog is None:
            msg = f"Catalog {name} does not exist."
            raise SqlError(msg)
        return catalog

    def _database(self, cat: str, db: str) -> _Database:
        """The database ``cat.db``; Flink's "Database db does not exist in Catalog cat." if none."""
        catalog = self._catalog(cat)
        database = catalog.databases.get(db.lower())
        if database is None:
            msg = f"Database {db} does not exist in Catalog {catalog.name}."
            raise SqlError(msg)
        return database

    # -- tables and views ---------------------------------------------------------------------
    def add(self, obj: TableDef | ViewDef, if_not_exists: bool = False, replace: bool = False,
            name: tuple[str, ...] | None = None) -> None:
        """Register a table or view, as ``name`` (its parts; default: ``obj.name`` in the current database).

        Raises:
            SqlError: when the name exists and neither ``if_not_exists`` nor ``replace`` is set,
                or its catalog or database does not exist.
        """
        cat, db, _ = self.qualify(name or obj.name)
        objects = self._database(cat, db).objects
        key = obj.name.lower()
        if key in objects and not replace:
            if if_not_exists:
                return
            kind = "Table" if isinstance(objects[key], TableDef) else "View"
            msg = f"{kind} '{obj.name}' already exists"
            raise SqlError(msg)
        objects[key] = obj

    def drop(self, name: str | tuple[str, ...], if_exists: bool = False, kind: type | None = None) -> None:
        """Remove a table or view.

        Raises:
            SqlError: for an unknown name (unless ``if_exists``), or a kind mismatch.
        """
        obj = self.find(name)
        if obj is None:
            if if_exists:
                return
            self.get(name)  # raises with the list of known names
        if kind is not None and not isinstance(obj, kind):
            msg = f"'{_dotted(name)}' is not a {'table' if kind is TableDef else 'view'}"
            raise SqlError(msg)
        cat, db, _ = self.qualify(name)
        del self._database(cat, db).objects[obj.name.lower()]

    def get(self, name: str | tuple[str, ...]) -> TableDef | ViewDef:
        """The table or view called ``name`` (``t``, ``db.t`` or ``cat.db.t``, as parts).

        Raises:
            SqlError: naming the unknown object and listing the known ones of its database, or
                saying which catalog or database does not exist.
        """
        cat, db, obj_name = self.qualify(name)
        try:
            objects = self._database(cat, db).objects
        except SqlError as e:
            msg = f"Table or view '{_dotted(name)}' not found: {e.message}"
            raise SqlError(msg) from None
        obj = objects.get(obj_name.lower())
        if obj is None:
            known = ", ".join(sorted(o.name for o in objects.values())) or "none"
            where = "" if isinstance(name, str) or len(name) == 1 else f" in {cat}.{db}"
            msg = f"Table or view '{_dotted(name)}' not found; known tables and views{where}: {known}"
            raise SqlError(msg)
        return obj

    def find(self, name: str | tuple[str, ...]) -> TableDef | ViewDef | None:
        """The table or view ``name``, or None (also when its catalog or database does not exist)."""
        try:
            return self.get(name)
        except SqlError:
            return None

    def __contains__(self, name: str | tuple[str, ...]) -> bool:
        return self.find(name) is not None

    def names(self) -> list[str]:
        """The current database's table and view names, sorted."""
        return sorted(o.name for o in self._current().values())

    def tables(self) -> list[TableDef]:
        """The current database's tables (not views)."""
        return self.objects(TableDef)

    def objects(self, kind: type | tuple[type, ...], database: tuple[str, ...] | None = None) -> list:
        """The tables (``kind`` TableDef) or views (ViewDef) of ``[cat.]db``, sorted (default: current db).

        Raises:
            SqlError: Flink's "Database 'default_catalog'.'db' doesn't exist." for an unknown one.
        """
        if database is None:
            objects = self._current()
        else:
            cat = database[0] if len(database) > 1 else self.current_catalog
            known = self._catalogs.get(cat.lower())
            found = known.databases.get(database[-1].lower()) if known else None
            if found is None:
                msg = f"Database '{cat}'.'{database[-1]}' doesn't exist."
                raise SqlError(msg)
            objects = found.objects
        return sorted((o for o in objects.values() if isinstance(o, kind)), key=lambda o: o.name)

    def _current(self) -> dict[str, TableDef | ViewDef]:
        return self._database(self.current_catalog, self.current_database).objects


def _dotted(name: str | tuple[str, ...]) -> str:
    return name if isinstance(name, str) else ".".join(name)
