"""The captured tables' schemas: which tables match, their columns and keys, and value conversion.

Types map as Flink CDC maps them (its "Data Type Mapping" table): integers to the integer type
that holds them (``INT UNSIGNED`` → BIGINT, ``BIGINT UNSIGNED`` → DECIMAL(20, 0)), ``TINYINT(1)``
and ``BIT(1)`` → BOOLEAN, ``DECIMAL(p, s)`` → DECIMAL(p, s), ``DATETIME(p)`` → TIMESTAMP(p),
``TIME(p)`` → TIME(p) (milliseconds), ``TIMESTAMP(p)`` → TIMESTAMP(p) as wall-clock time in
``'server-time-zone'`` (or TIMESTAMP_LTZ(p): the instant), ``DATE``, ``YEAR`` → INT, character
types, ``ENUM`` and ``JSON`` (its text) → STRING, ``BIT(n > 1)`` → BYTES (little-endian, as
Debezium hands them to Flink CDC), binary and BLOB types → BYTES. A declared column must exist in
every captured table and have a type its MySQL type maps to (or a wider one); ``SET`` and spatial
types are refused (StreamSQL has no such type yet).
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from typing import Any, Callable
from zoneinfo import ZoneInfo

import pyarrow as pa
from streamsql.connectors.jdbc import time_of_day

from streamsql.core.catalog import TableDef
from streamsql.core.errors import ConfigError
from streamsql.core.types import SqlType, assignable

_SYSTEM = ("information_schema", "mysql", "performance_schema", "sys")


@dataclass
class Column:
    """A MySQL column as information_schema describes it."""

    name: str
    data_type: str
    column_type: str
    precision: int | None
    scale: int | None
    datetime_precision: int | None
    collation: str | None = None


@dataclass
class CapturedTable:
    """One captured MySQL table: its columns and primary key."""

    database: str
    name: str
    columns: dict[str, Column]
    primary_key: list[str]

    @property
    def qualified(self) -> str:
        """``database.table``."""
        return f"{self.database}.{self.name}"


def mapped_type(c: Column) -> SqlType | None:
    """The Flink type Flink CDC maps ``c`` to, or None for a type StreamSQL cannot hold."""
    t, ct = c.data_type, c.column_type.lower()
    unsigned = "unsigned" in ct
    if t == "tinyint":
        if ct.startswith("tinyint(1)"):
            return SqlType("BOOLEAN")
        return SqlType("SMALLINT" if unsigned else "TINYINT")
    ints = {"smallint": ("SMALLINT", "INT"), "mediumint": ("INT", "INT"), "int": ("INT", "BIGINT"),
            "bigint": ("BIGINT", None)}
    if t in ints:
        name = ints[t][1] if unsigned else ints[t][0]
        return SqlType(name) if name else SqlType("DECIMAL", 20, 0)
    if t in ("decimal", "numeric"):
        return SqlType("DECIMAL", c.precision, c.scale)
    if t == "float":
        return SqlType("FLOAT")
    if t in ("double", "real"):
        return SqlType("DOUBLE")
    if t == "bit":
        return SqlType("BOOLEAN") if (c.precision or 1) == 1 else SqlType("BYTES")
    if t in ("datetime", "timestamp"):
        return SqlType("TIMESTAMP", c.datetime_precision or 0)
    if t == "date":
        return SqlType("DATE")
    if t == "time":  # Flink CDC: TIME(p), which holds milliseconds (TIME(p > 3) is TIME(3) in Flink)
        return SqlType("TIME", min(c.datetime_precision or 0, 3))
    if t == "year":
        return SqlType("INT")
    if t in ("char", "varchar", "tinytext", "text", "mediumtext", "longtext", "enum", "json"):
        return SqlType("STRING")
    if t in ("binary", "varbinary", "tinyblob", "blob", "mediumblob", "longblob"):
        return SqlType("BYTES")
    return None


def list_tables(cur, database: str, table: str) -> list[tuple[str, str]]:
    """``(database, table)`` pairs whose names fully match the two regular expressions, sorted."""
    cur.execute("SELECT TABLE_SCHEMA, TABLE_NAME FROM information_schema.TABLES "
                "WHERE TABLE_TYPE = 'BASE TABLE'")
    db_re, t_re = re.compile(database), re.compile(table)
    out = []
    for db, name in cur.fetchall():
        qualified = f"{db}.{name}"
        if db in _SYSTEM or not db_re.fullmatch(db):
            continue
        if t_re.fullmatch(name) or t_re.fullmatch(qualified):  # Flink CDC accepts 'db.table' too
            out.append((db, name))
    return sorted(out)


def describe(cur, database: str, name: str) -> CapturedTable:
    """The columns and primary key of ``database.name``."""
    cur.execute(
        "SELECT COLUMN_NAME, DATA_TYPE, COLUMN_TYPE, NUMERIC_PRECISION, NUMERIC_SCALE, DATETIME_PRECISION, "
        "COLLATION_NAME "
        "FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = %s AND TABLE_NAME = %s "
        "ORDER BY ORDINAL_POSITION",
        (database, name))
    cols = {r[0]: Column(r[0], r[1].lower(), r[2], r[3], r[4], r[5], r[6]) for r in cur.fetchall()}
    cur.execute(
        "SELECT COLUMN_NAME FROM information_schema.KEY_COLUMN_USAGE WHERE TABLE_SCHEMA = %s AND "
        "TABLE_NAME = %s AND CONSTRAINT_NAME = 'PRIMARY' ORDER BY ORDINAL_POSITION", (database, name))
    return CapturedTable(database, name, cols, [r[0] for r in cur.fetchall()])


def check_table(table: TableDef, captured: CapturedTable) -> None:
    """Check the declared columns and primary key against one captured table.

    Raises:
        ConfigError: for a declared column the table lacks, a type its MySQL type does not map
            to, or a declared primary key other than the table's.
    """
    where = f"Table '{table.name}': MySQL table {captured.qualified}"
    for f in table.physical_schema:
        c = _find(captured, f.name)
        if c is None:
            msg = f"{where} has no column '{f.name}' (it has: {', '.join(captured.columns)})"
            raise ConfigError(msg)
        want = mapped_type(c)
        if want is None:
            msg = f"{where}: column '{c.name}' has type {c.column_type}, which StreamSQL cannot read yet"
            raise ConfigError(msg)
        declared = f.type
        ok = assignable(want, declared) or (
            c.data_type == "timestamp" and declared.name == "TIMESTAMP_LTZ")
        if not ok:
            msg = (f"{where}: column '{c.name}' is {c.column_type}, which maps to {want.sql()}; "
                   f"declare it as {want.sql()} instead of {declared.sql()}")
            raise ConfigError(msg)
    declared_pk = [k.lower() for k in table.primary_key]
    actual_pk = [k.lower() for k in captured.primary_key]
    if declared_pk and declared_pk != actual_pk:
        actual = f"PRIMARY KEY ({', '.join(captured.primary_key)})" if actual_pk else "no primary key"
        msg = (f"{where} has {actual}, but the table declares PRIMARY KEY ({', '.join(table.primary_key)}); "
               "declare the table's own key")
        raise ConfigError(msg)
    if not actual_pk:
        msg = f"{where} has no primary key; mysql-cdc reads tables with a primary key"
        raise ConfigError(msg)


def _find(captured: CapturedTable, name: str) -> Column | None:
    low = name.lower()
    return next((c for c in captured.columns.values() if c.name.lower() == low), None)


def column_name(captured: CapturedTable, name: str) -> str:
    """The table's spelling of declared column ``name``."""
    c = _find(captured, name)
    return c.name if c is not None else name


def _bits(v: Any) -> int:
    """A BIT value as a number: bytes (a SELECT, big-endian) or '0101' text (the binlog)."""
    if isinstance(v, (bytes, bytearray)):
        return int.from_bytes(v, "big")
    return int(v, 2)


def converter(c: Column, declared: SqlType, zone: str | None) -> Callable[[Any], Any]:
    """A function from a value as pymysql or the binlog gives it to the value of ``declared``.

    TIMESTAMP values arrive as naive UTC datetimes (the binlog's instants; the snapshot reads
    them with the session time zone set to UTC).
    """
    if c.data_type == "bit":
        if declared.name == "BOOLEAN":
            return lambda v: None if v is None else _bits(v) != 0
        size = ((c.precision or 1) + 7) // 8
        return lambda v: None if v is None else _bits(v).to_bytes(size, "little")
    if declared.name == "BOOLEAN":
        return lambda v: None if v is None else bool(v)
    if declared.name == "TIME":  # pymysql and the binlog give a timedelta: its time of day, in ms
        return lambda v: None if v is None else time_of_day(v)
    if c.data_type == "timestamp" and declared.name == "TIMESTAMP":
        tz = ZoneInfo(zone) if zone else None

        def wall(v):
            if v is None:
                return None
            instant = v.replace(tzinfo=dt.timezone.utc)
            return (instant.astimezone(tz) if tz else instant.astimezone()).replace(tzinfo=None)

        return wall
    if declared.name == "STRING":
        return lambda v: v if v is None or isinstance(v, str) else (
            v.decode("utf-8", "replace") if isinstance(v, (bytes, bytearray)) else str(v))
    if declared.name == "BYTES":
        return lambda v: v if v is None or isinstance(v, bytes) else (
            bytes(v) if isinstance(v, bytearray) else str(v).encode())
    return lambda v: v


def arrow_column(values: list, declared: SqlType) -> pa.Array:
    """An Arrow array of ``declared`` from converted values."""
    return pa.array(values, declared.to_arrow())
