"""Helpers for connector tests: build schemas and table definitions from short specs."""

from __future__ import annotations

from streamsql.core.catalog import ColumnDef, TableDef
from streamsql.core.types import Field, Schema, SqlType


def schema_of(**cols: str) -> Schema:
    return Schema([Field(n, SqlType.parse(t)) for n, t in cols.items()])


def table_of(name: str, options: dict[str, str], /, **cols: str) -> TableDef:
    return TableDef(name, [ColumnDef(n, SqlType.parse(t)) for n, t in cols.items()], dict(options))
