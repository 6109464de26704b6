"""Flink's catalog and database statements, run against :class:`~streamsql.core.catalog.Catalog`.

``SHOW CATALOGS | DATABASES | CURRENT CATALOG | CURRENT DATABASE | [FULL] MODULES``, ``SHOW
TABLES | VIEWS [FROM | IN [c.]db]``, ``USE MODULES core``, ``USE
CATALOG c``, ``USE [c.]db``, ``CREATE DATABASE [IF NOT EXISTS] [c.]db``, ``DROP DATABASE [IF
EXISTS] [c.]db [RESTRICT | CASCADE]``, ``CREATE CATALOG [IF NOT EXISTS] c WITH ('type' =
'generic_in_memory')``, ``DROP CATALOG [IF EXISTS] c`` and ``DROP TABLE | VIEW``. Result columns
and messages are Flink 2.3's (``scripts/flink_catalog.py`` records them).

Only in-memory catalogs exist here: a catalog type that persists tables elsewhere (``hive``,
``jdbc``, ``paimon`` ...) is refused, never mapped to memory silently.
"""

from __future__ import annotations

import re

from sqlglot import exp

from streamsql.core.catalog import IN_MEMORY_DEFAULT_DATABASE, Catalog, TableDef, ViewDef, table_parts
from streamsql.core.errors import SqlError
from streamsql.sql import nodes

IN_MEMORY = "generic_in_memory"
"""The one catalog type StreamSQL creates (Flink's GenericInMemoryCatalog)."""
IN_MEMORY_DATABASE_OPTION = "default-database"
"""Its option naming the database it starts with (Flink's default: ``default``)."""

# SHOW ... → (column names, rows), as Flink's.
_SHOW_COLUMNS = {
    "CATALOGS": ["catalog name"], "DATABASES": ["database name"],
    "CURRENT CATALOG": ["current catalog name"], "CURRENT DATABASE": ["current database name"],
    "MODULES": ["module name"], "FULL MODULES": ["module name", "used"],
}
# SHOW JARS | MODELS | MATERIALIZED TABLES (nodes.ShowNone): Flink's column, always empty here.
_NONE_COLUMNS = {"JARS": "jars", "MODELS": "model name", "MATERIALIZED TABLES": "materialized table"}

Rows = tuple[list[str], list[tuple]]


def execute(catalog: Catalog, tree: exp.Expression) -> Rows | str:
    """Run one namespace statement.

    Returns:
        ``(columns, rows)`` for a SHOW, else the client's message.

    Raises:
        SqlError: Flink's error (unpositioned: the caller points at the statement).
    """
    if isinstance(tree, nodes.DescribeCatalog):
        return ["info name", "info value"], catalog.describe_catalog(tree.this.name,
                                                                     bool(tree.args.get("extended")))
    if isinstance(tree, nodes.UseModules):
        return _use_modules([m.name for m in tree.expressions])
    if isinstance(tree, nodes.ShowNamespace):
        rows = _show(catalog, tree.name, tree.args.get("catalog"))
        return _SHOW_COLUMNS[tree.name], [r for r in rows if shown(tree, r[0])]
    if isinstance(tree, (nodes.ShowTables, nodes.ShowViews)):
        # Flink's SHOW TABLES lists the views too
        kind = (TableDef, ViewDef) if isinstance(tree, nodes.ShowTables) else ViewDef
        column = "view name" if kind is ViewDef else "table name"
        database = table_parts(tree.this) if tree.this else None
        return [column], [(o.name,) for o in catalog.objects(kind, database) if shown(tree, o.name)]
    if isinstance(tree, nodes.ShowNone):
        if tree.args.get("database") is not None:
            parts = table_parts(tree.args["database"])
            cat = parts[0] if len(parts) > 1 else catalog.current_catalog
            if parts[-1].lower() not in {d.lower() for d in catalog.database_names(cat)}:
                msg = f"Database {parts[-1]} does not exist in Catalog {cat}."  # Flink's (SHOW MODELS)
                raise SqlError(msg)
        return [_NONE_COLUMNS[tree.name]], []
    if isinstance(tree, exp.Use):
        if tree.text("kind").upper() == "CATALOG":
            catalog.use_catalog(tree.this.name)
        else:
            catalog.use_database(table_parts(tree.this))
    elif isinstance(tree, nodes.CreateCatalog):
        name = tree.this.name
        options = _catalog_options(name, tree.expressions)
        catalog.create_catalog(name, options.get(IN_MEMORY_DATABASE_OPTION, IN_MEMORY_DEFAULT_DATABASE),
                               if_not_exists=bool(tree.args.get("exists")), options=options)
    elif isinstance(tree, nodes.DropCatalog):
        catalog.drop_catalog(tree.this.name, bool(tree.args.get("exists")))
    elif isinstance(tree, exp.Create):  # CREATE DATABASE
        catalog.create_database(table_parts(tree.this), bool(tree.args.get("exists")))
    else:
        return _drop(catalog, tree)
    return "[INFO] Execute statement succeeded."


def shown(tree: exp.Expression, name: str) -> bool:
    """Whether a SHOW lists ``name`` under its ``[NOT] LIKE | ILIKE`` (ILIKE: case-insensitive)."""
    like = tree.args.get("like")
    if like is None:
        return True
    if tree.args.get("ilike"):
        return like_matches(name.lower(), like.name.lower()) != bool(tree.args.get("negated"))
    return like_matches(name, like.name) != bool(tree.args.get("negated"))


def like_matches(text: str, pattern: str) -> bool:
    r"""Whether ``text`` matches SQL LIKE ``pattern``, as Flink's SHOW statements match names.

    Case-sensitive; ``%`` is any run of characters, ``_`` one character, ``\`` escapes the next.
    """
    out, i = [], 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\" and i + 1 < len(pattern):
            i += 1
            out.append(re.escape(pattern[i]))
        else:
            out.append(".*" if ch == "%" else "." if ch == "_" else re.escape(ch))
        i += 1
    return re.fullmatch("".join(out), text, re.DOTALL) is not None


def _show(catalog: Catalog, what: str, of_catalog: exp.Expression | None) -> list[tuple]:
    if what == "CATALOGS":
        return [(c,) for c in catalog.catalog_names()]
    if what == "DATABASES":
        return [(d,) for d in catalog.database_names(of_catalog.name if of_catalog else None)]
    if what == "CURRENT CATALOG":
        return [(catalog.current_catalog,)]
    if what == "CURRENT DATABASE":
        return [(catalog.current_database,)]
    return [("core", True)] if what == "FULL MODULES" else [("core",)]


def _use_modules(names: list[str]) -> str:
    """``USE MODULES``: Flink's only module here is ``core`` (case-sensitive), each named once.

    Raises:
        SqlError: Flink 2.3's words (checked with PyFlink): ``Could not execute USE MODULES: [core,
            hive]. No module with name 'hive' exists`` or ``Module 'core' appears more than once``.
    """
    unknown = next((m for m in names if m != "core"), None)
    if unknown is not None or len(names) > 1:
        why = (f"No module with name '{unknown}' exists" if unknown is not None
               else "Module 'core' appears more than once")
        msg = f"Could not execute USE MODULES: [{', '.join(names)}]. {why}"
        raise SqlError(msg)
    return "[INFO] Execute statement succeeded."


def _drop(catalog: Catalog, tree: exp.Drop) -> str:
    kind = (tree.args.get("kind") or "").upper()
    name = table_parts(tree.args["tables"][0])
    if kind == "DATABASE":
        catalog.drop_database(name, bool(tree.args.get("exists")), bool(tree.args.get("cascade")))
        return "[INFO] Execute statement succeeded."
    cls = TableDef if kind == "TABLE" else ViewDef
    catalog.drop(name, bool(tree.args.get("exists")), cls)
    return f"[INFO] {cls.__name__[:-3]} has been removed."


def _catalog_options(name: str, options: list[exp.Expression]) -> dict[str, str]:
    """The options of a ``CREATE CATALOG``, as Flink's GenericInMemoryCatalogFactory takes them.

    ``'type' = 'generic_in_memory'`` and optionally ``'default-database'``.

    Returns:
        The options as given (key → value), for ``DESCRIBE CATALOG EXTENDED``.

    Raises:
        SqlError: "Unable to create catalog 'c'. ..." naming what is wrong, in Flink's words when
            the type is missing or an option unknown.
    """
    options_given = {p.this.name: p.text("value") for p in options if isinstance(p, exp.Property)}
    given = {k: v for k, v in options_given.items() if k != IN_MEMORY_DATABASE_OPTION}
    kind = given.pop("type", None)
    prefix = f"Unable to create catalog '{name}'."
    if kind is None:
        msg = f"{prefix} Catalog options do not contain an option key 'type' for discovering a catalog."
        raise SqlError(msg)
    if kind.lower() != IN_MEMORY:
        msg = (f"{prefix} Catalog type '{kind}' is not supported: StreamSQL keeps tables, views and "
               f"databases in memory for the session; use 'type' = '{IN_MEMORY}' (and CREATE TABLE for "
               "each table)")
        raise SqlError(msg)
    if given:
        msg = (f"{prefix} Unsupported options found for '{IN_MEMORY}'. Unsupported options: "
               f"{', '.join(sorted(given))}. Supported options: {IN_MEMORY_DATABASE_OPTION}, type")
        raise SqlError(msg)
    if options_given.get(IN_MEMORY_DATABASE_OPTION) == "":
        msg = f"{prefix} The option '{IN_MEMORY_DATABASE_OPTION}' cannot be empty"
        raise SqlError(msg)
    return options_given
