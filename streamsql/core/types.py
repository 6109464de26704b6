"""SQL data types, their Arrow physical types, and conversions between them.

Flink SQL's type names are the reference: STRING, VARCHAR(n), BOOLEAN, TINYINT, SMALLINT, INT,
BIGINT, FLOAT, DOUBLE, DECIMAL(p, s), DATE, TIMESTAMP(p), TIMESTAMP_LTZ(p), BYTES.

Physical representation inside a batch (Arrow):

=============== ===================================================
SQL type        Arrow type
=============== ===================================================
STRING/VARCHAR  ``large_string`` is avoided; ``string`` (utf8)
BOOLEAN         ``bool_``
TINYINT..BIGINT ``int8`` .. ``int64``
FLOAT, DOUBLE   ``float32``, ``float64``
DECIMAL(p, s)   ``decimal128(p, s)`` (exact; never a binary float)
DATE            ``date32``
TIMESTAMP(p)    ``timestamp('ms' | 'us')`` without zone (wall clock)
TIMESTAMP_LTZ   ``timestamp('ms' | 'us', tz='UTC')`` (an instant)
BYTES           ``binary``
=============== ===================================================
"""

from __future__ import annotations

from dataclasses import dataclass

import pyarrow as pa

from streamsql.core.errors import SqlError

_ALIASES = {
    "VARCHAR": "STRING", "CHAR": "STRING", "TEXT": "STRING", "STRING": "STRING",
    "BOOLEAN": "BOOLEAN", "BOOL": "BOOLEAN",
    "TINYINT": "TINYINT", "SMALLINT": "SMALLINT", "INT": "INT", "INTEGER": "INT", "BIGINT": "BIGINT",
    "FLOAT": "FLOAT", "REAL": "FLOAT", "DOUBLE": "DOUBLE", "DOUBLE PRECISION": "DOUBLE",
    "DECIMAL": "DECIMAL", "NUMERIC": "DECIMAL", "DEC": "DECIMAL",
    "DATE": "DATE", "TIMESTAMP": "TIMESTAMP", "TIMESTAMP_LTZ": "TIMESTAMP_LTZ",
    "TIMESTAMPLTZ": "TIMESTAMP_LTZ", "TIMESTAMPTZ": "TIMESTAMP_LTZ",
    "BYTES": "BYTES", "VARBINARY": "BYTES", "BINARY": "BYTES", "BLOB": "BYTES",
}


@dataclass(frozen=True)
class SqlType:
    """A SQL type: a canonical Flink name plus parameters.

    Attributes:
        name: canonical name, one of STRING, BOOLEAN, TINYINT, SMALLINT, INT, BIGINT, FLOAT,
            DOUBLE, DECIMAL, DATE, TIMESTAMP, TIMESTAMP_LTZ, BYTES.
        precision: DECIMAL precision, TIMESTAMP fractional-second precision (0-9), VARCHAR length.
        scale: DECIMAL scale.
        nullable: False for ``NOT NULL`` columns.
    """

    name: str
    precision: int | None = None
    scale: int | None = None
    nullable: bool = True

    @staticmethod
    def parse(text: str) -> SqlType:
        """Parse a type name such as ``DECIMAL(10, 2)`` or ``TIMESTAMP_LTZ(3)``.

        Raises:
            SqlError: for an unknown type name.
        """
        t = text.strip().upper()
        nullable = True
        if t.endswith("NOT NULL"):
            nullable, t = False, t[: -len("NOT NULL")].strip()
        args: list[int] = []
        if "(" in t:
            base, rest = t.split("(", 1)
            args = [int(a) for a in rest.rstrip(")").split(",") if a.strip()]
            t = base.strip()
        if t.startswith("TIMESTAMP") and "LOCAL TIME ZONE" in t:
            t = "TIMESTAMP_LTZ"
        elif t.startswith("TIMESTAMP") and t not in ("TIMESTAMP_LTZ", "TIMESTAMPLTZ", "TIMESTAMPTZ"):
            t = "TIMESTAMP"
        name = _ALIASES.get(t)
        if name is None:
            msg = f"Unknown type {text!r}; supported: {', '.join(sorted(set(_ALIASES.values())))}"
            raise SqlError(msg)
        if name == "DECIMAL":
            p = args[0] if args else 10
            s = args[1] if len(args) > 1 else 0
            return SqlType(name, p, s, nullable)
        if name in ("TIMESTAMP", "TIMESTAMP_LTZ"):
            return SqlType(name, args[0] if args else (6 if name == "TIMESTAMP" else 6), None, nullable)
        if name == "STRING" and args:
            return SqlType(name, args[0], None, nullable)
        return SqlType(name, None, None, nullable)

    def sql(self) -> str:
        """The Flink SQL spelling, e.g. ``DECIMAL(10, 2)``, ``TIMESTAMP(3)``, ``VARCHAR(20)``."""
        if self.name == "DECIMAL":
            base = f"DECIMAL({self.precision}, {self.scale})"
        elif self.name in ("TIMESTAMP", "TIMESTAMP_LTZ"):
            base = f"{self.name}({self.precision})"
        elif self.name == "STRING" and self.precision is not None:
            base = f"VARCHAR({self.precision})"
        else:
            base = self.name
        return base if self.nullable else base + " NOT NULL"

    def __str__(self) -> str:
        return self.sql()

    def to_arrow(self) -> pa.DataType:
        """The Arrow type that carries values of this SQL type (see module table)."""
        n = self.name
        if n == "DECIMAL":
            return pa.decimal128(self.precision or 10, self.scale or 0)
        if n in ("TIMESTAMP", "TIMESTAMP_LTZ"):
            unit = "ms" if (self.precision or 0) <= 3 else "us"
            return pa.timestamp(unit, tz="UTC" if n == "TIMESTAMP_LTZ" else None)
        return _ARROW[n]

    def duckdb(self) -> str:
        """The DuckDB type used to CAST to this type in compiled expressions."""
        n = self.name
        if n == "DECIMAL":
            return f"DECIMAL({self.precision}, {self.scale})"
        if n == "TIMESTAMP":
            return "TIMESTAMP_MS" if (self.precision or 0) <= 3 else "TIMESTAMP"
        if n == "TIMESTAMP_LTZ":
            return "TIMESTAMPTZ"
        return _DUCK[n]

    @property
    def is_numeric(self) -> bool:
        """True for integer, floating and decimal types."""
        return self.name in ("TINYINT", "SMALLINT", "INT", "BIGINT", "FLOAT", "DOUBLE", "DECIMAL")

    @property
    def is_time(self) -> bool:
        """True for TIMESTAMP and TIMESTAMP_LTZ (candidate time attributes)."""
        return self.name in ("TIMESTAMP", "TIMESTAMP_LTZ")

    @staticmethod
    def from_arrow(t: pa.DataType) -> SqlType:
        """Map an Arrow type (e.g. a DuckDB result column) back to a SQL type.

        Raises:
            SqlError: for an Arrow type with no SQL counterpart (lists, structs, ...).
        """
        if pa.types.is_decimal(t):
            return SqlType("DECIMAL", t.precision, t.scale)
        if pa.types.is_timestamp(t):
            p = {"s": 0, "ms": 3, "us": 6, "ns": 9}[t.unit]
            return SqlType("TIMESTAMP_LTZ" if t.tz else "TIMESTAMP", p)
        if pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_string_view(t):
            return SqlType("STRING")
        if pa.types.is_binary(t) or pa.types.is_large_binary(t):
            return SqlType("BYTES")
        if pa.types.is_null(t):
            return SqlType("STRING")
        for name, at in _ARROW.items():
            if t == at:
                return SqlType(name)
        if pa.types.is_date(t):
            return SqlType("DATE")
        if pa.types.is_integer(t):
            return SqlType("BIGINT")
        msg = f"Unsupported result type {t}"
        raise SqlError(msg)


_ARROW = {
    "STRING": pa.string(), "BOOLEAN": pa.bool_(), "TINYINT": pa.int8(), "SMALLINT": pa.int16(),
    "INT": pa.int32(), "BIGINT": pa.int64(), "FLOAT": pa.float32(), "DOUBLE": pa.float64(),
    "DATE": pa.date32(), "BYTES": pa.binary(),
}
_DUCK = {
    "STRING": "VARCHAR", "BOOLEAN": "BOOLEAN", "TINYINT": "TINYINT", "SMALLINT": "SMALLINT",
    "INT": "INTEGER", "BIGINT": "BIGINT", "FLOAT": "FLOAT", "DOUBLE": "DOUBLE", "DATE": "DATE",
    "BYTES": "BLOB",
}


_INT_RANK = {"TINYINT": 1, "SMALLINT": 2, "INT": 3, "BIGINT": 4}


def assignable(src: SqlType, dst: SqlType) -> bool:
    """Whether a ``src`` query column may be written to a ``dst`` sink column without a CAST.

    As Flink's INSERT type check: the same type family and no narrowing (integers widen,
    integers and decimals go to DECIMAL/FLOAT/DOUBLE, FLOAT to DOUBLE, strings of any length,
    timestamps of any precision).
    """
    a, b = src.name, dst.name
    if a == b:
        return True
    if a in _INT_RANK and b in _INT_RANK:
        return _INT_RANK[a] <= _INT_RANK[b]
    if a in _INT_RANK and b in ("DECIMAL", "FLOAT", "DOUBLE"):
        return True
    if a == "DECIMAL" and b in ("FLOAT", "DOUBLE"):
        return True
    return a == "FLOAT" and b == "DOUBLE"


@dataclass(frozen=True)
class Field:
    """A named, typed column of a schema."""

    name: str
    type: SqlType


class Schema:
    """An ordered list of fields with case-insensitive lookup.

    Flink identifiers are case-sensitive, but we resolve case-insensitively and report the
    declared spelling.
    """

    def __init__(self, fields: list[Field]):
        self.fields = list(fields)

    @property
    def names(self) -> list[str]:
        """Field names in order."""
        return [f.name for f in self.fields]

    def find(self, name: str) -> Field | None:
        """The field called ``name`` (exact match first, then case-insensitive), or None."""
        for f in self.fields:
            if f.name == name:
                return f
        low = name.lower()
        for f in self.fields:
            if f.name.lower() == low:
                return f
        return None

    def to_arrow(self) -> pa.Schema:
        """The Arrow schema of a batch with these columns."""
        return pa.schema([pa.field(f.name, f.type.to_arrow()) for f in self.fields])

    @staticmethod
    def from_arrow(schema: pa.Schema) -> Schema:
        """The SQL schema of an Arrow schema (see :meth:`SqlType.from_arrow`)."""
        return Schema([Field(f.name, SqlType.from_arrow(f.type)) for f in schema])

    def __len__(self) -> int:
        return len(self.fields)

    def __iter__(self):
        return iter(self.fields)

    def __repr__(self) -> str:
        return "Schema(" + ", ".join(f"{f.name} {f.type}" for f in self.fields) + ")"
