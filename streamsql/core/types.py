"""SQL data types, their Arrow physical types, and conversions between them.

Flink SQL's type names are the reference: STRING, VARCHAR(n), CHAR(n), BOOLEAN, TINYINT, SMALLINT, INT,
BIGINT, FLOAT, DOUBLE, DECIMAL(p, s), DATE, TIME(p), TIMESTAMP(p), TIMESTAMP_LTZ(p), BYTES,
VARBINARY(n), BINARY(n).

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
TIME(p)         ``time64('us')`` (p 0-3, in the field's metadata; TIME(p > 3) is TIME(3): values hold
                whole milliseconds, as Flink's TIME, an int of milliseconds of the day)
TIMESTAMP(p)    ``timestamp('ms' | 'us' | 'ns')`` without zone (wall clock): p 0-3, 4-6, 7-9
TIMESTAMP_LTZ   ``timestamp('ms' | 'us' | 'ns', tz='UTC')`` (an instant); nanoseconds only for
                p > 6, so years 1677..2262 (int64 nanoseconds), as DuckDB's TIMESTAMP_NS
BYTES           ``binary`` (VARBINARY(n), BINARY(n) too: the length in the field's metadata)
BITMAP          ``binary``: RoaringBitmap's portable serialization (the type in the field's
                metadata; :mod:`streamsql.functions.scalars.bitmap`)
VARIANT         ``string``, the value's JSON text in Flink's form (keys sorted, numbers as Flink
                prints them; :mod:`streamsql.functions.scalars.variant`), the type in the
                field's metadata
ROW<a T, ...>   ``struct<a: T, ...>`` (field names kept)
ARRAY<T>        ``list<item: T>``
MAP<K, V>       ``map<K, V>``
=============== ===================================================

Composite types nest arbitrarily; their parts are :attr:`SqlType.children` (ROW fields with
:attr:`SqlType.field_names`, the ARRAY element, the MAP key and value).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace

import pyarrow as pa

from streamsql.core.errors import SqlError
from streamsql.core.timestamp_precision import truncate_sql, truncate_time_sql

_ALIASES = {
    "VARCHAR": "STRING", "CHAR": "STRING", "TEXT": "STRING", "STRING": "STRING",
    "BOOLEAN": "BOOLEAN", "BOOL": "BOOLEAN",
    "TINYINT": "TINYINT", "SMALLINT": "SMALLINT", "INT": "INT", "INTEGER": "INT", "BIGINT": "BIGINT",
    "FLOAT": "FLOAT", "REAL": "FLOAT", "DOUBLE": "DOUBLE", "DOUBLE PRECISION": "DOUBLE",
    "DECIMAL": "DECIMAL", "NUMERIC": "DECIMAL", "DEC": "DECIMAL",
    "DATE": "DATE", "TIME": "TIME", "TIMESTAMP": "TIMESTAMP", "TIMESTAMP_LTZ": "TIMESTAMP_LTZ",
    "TIMESTAMPLTZ": "TIMESTAMP_LTZ", "TIMESTAMPTZ": "TIMESTAMP_LTZ",
    "BYTES": "BYTES", "VARBINARY": "BYTES", "BINARY": "BYTES", "BLOB": "BYTES",
    "ROW": "ROW", "STRUCT": "ROW", "STRUCTURED": "ROW", "ARRAY": "ARRAY", "MAP": "MAP", "VARIANT": "VARIANT",
    "BITMAP": "BITMAP", "MULTISET": "MULTISET",
}
_COMPOSITE = ("ROW", "ARRAY", "MAP")


@dataclass(frozen=True)
class SqlType:
    """A SQL type: a canonical Flink name plus parameters.

    Attributes:
        name: canonical name, one of STRING, BOOLEAN, TINYINT, SMALLINT, INT, BIGINT, FLOAT,
            DOUBLE, DECIMAL, DATE, TIME, TIMESTAMP, TIMESTAMP_LTZ, BYTES, VARIANT, BITMAP (Flink 2.3's set
            of 32-bit unsigned integers; no parameters).
        precision: DECIMAL precision, TIME and TIMESTAMP fractional-second precision (0-9), VARCHAR or
            CHAR length (characters), VARBINARY or BINARY length (bytes); None for STRING and
            BYTES (Flink's VARBINARY(2147483647)).
        scale: DECIMAL scale.
        nullable: False for ``NOT NULL`` columns.
        children: the field types of a ROW, the element type of an ARRAY, the key and value
            types of a MAP; empty for other types.
        field_names: the field names of a ROW, in order.
        class_name: a ROW that is Flink's structured type ``STRUCTURED<'com.example.User', ...>``
            (OBJECT_OF makes one): its class name; None for a ROW.
        padded: a STRING of fixed length, ``CHAR(n)``: values are blank-padded to ``precision``
            characters (and cut to it), as Flink's CHAR; a BYTES of fixed length, ``BINARY(n)``:
            values are padded with zero bytes to ``precision`` bytes (and cut to it), as Flink's
            BINARY.
    """

    name: str
    precision: int | None = None
    scale: int | None = None
    nullable: bool = True
    children: tuple[SqlType, ...] = ()
    field_names: tuple[str, ...] = ()
    padded: bool = False
    class_name: str | None = None

    # Immutable: a copy is the value itself. sqlglot deep-copies every node's meta, where the
    # planner keeps a column's SqlType, on each copy and generate (most of planning a VALUES cell).
    def __copy__(self) -> SqlType:
        return self

    def __deepcopy__(self, memo: dict) -> SqlType:
        return self

    @staticmethod
    def row(fields: list[tuple[str, SqlType]], nullable: bool = True) -> SqlType:
        """``ROW<name type, ...>``."""
        return SqlType("ROW", nullable=nullable, children=tuple(t for _, t in fields),
                       field_names=tuple(n for n, _ in fields))

    @staticmethod
    def structured(class_name: str, fields: list[tuple[str, SqlType]], nullable: bool = True) -> SqlType:
        """``STRUCTURED<'class_name', name type, ...>``: a ROW with a class name (Flink's structured type)."""
        return replace(SqlType.row(fields, nullable), class_name=class_name)

    @staticmethod
    def array(element: SqlType, nullable: bool = True) -> SqlType:
        """``ARRAY<element>``."""
        return SqlType("ARRAY", nullable=nullable, children=(element,))

    @staticmethod
    def map(key: SqlType, value: SqlType, nullable: bool = True) -> SqlType:
        """``MAP<key, value>``."""
        return SqlType("MAP", nullable=nullable, children=(key, value))

    @property
    def is_composite(self) -> bool:
        """True for ROW, ARRAY and MAP."""
        return self.name in _COMPOSITE

    @property
    def fields(self) -> list[tuple[str, SqlType]]:
        """A ROW's (name, type) pairs in order."""
        return list(zip(self.field_names, self.children))

    def field(self, name: str) -> tuple[int, str, SqlType] | None:
        """(index, declared name, type) of a ROW's field: exact match first, then ignoring case."""
        for exact in (True, False):
            for i, (n, t) in enumerate(self.fields):
                if n == name if exact else n.lower() == name.lower():
                    return i, n, t
        return None

    @staticmethod
    def multiset(element: SqlType, nullable: bool = True) -> SqlType:
        """``MULTISET<element>``: Flink's COLLECT result, each element with its count."""
        return SqlType("MULTISET", nullable=nullable, children=(element,))

    def counted(self) -> SqlType:
        """A MULTISET's representation: ``MAP<element, INT NOT NULL>``, each element to its count.

        As Flink holds it (a ``MapData``); carried in Arrow and DuckDB as that map, its SQL type in the
        field's metadata.
        """
        return SqlType.map(self.children[0], SqlType("INT", nullable=False), self.nullable)

    def with_nullable(self, nullable: bool) -> SqlType:
        """The same type, nullable or ``NOT NULL``."""
        return replace(self, nullable=nullable)

    @staticmethod
    def parse(text: str) -> SqlType:
        """Parse a type name such as ``DECIMAL(10, 2)`` or ``TIMESTAMP_LTZ(3)``.

        Composite types nest: ``ROW<a INT, b ARRAY<STRING>>`` (also ``ROW(a INT, ...)`` and
        sqlglot's ``STRUCT<...>``), ``ARRAY<T>``, ``MAP<K, V>``.

        Raises:
            SqlError: for an unknown type name, or parameters that are not integers.
        """
        head = re.match(r"\s*(ROW|STRUCTURED|STRUCT|ARRAY|MAP|MULTISET)\s*[<(]", text, re.IGNORECASE)
        if head:
            t, rest = _TypeReader(text).composite()
            if rest.strip():
                msg = f"Unknown type {text!r}: unexpected {rest.strip()!r}"
                raise SqlError(msg)
            return t
        t = text.strip().upper()
        nullable = True
        if t.endswith("NOT NULL"):
            nullable, t = False, t[: -len("NOT NULL")].strip()
        args: list[int] = []
        if "(" in t:
            base, rest = t.split("(", 1)
            params = [a.strip() for a in rest.rstrip(")").split(",") if a.strip()]
            if not all(a.isdigit() for a in params):
                msg = f"Unknown type {text!r}: the parameters of a type are integers, as DECIMAL(10, 2)"
                raise SqlError(msg)
            args = [int(a) for a in params]
            t = base.strip()
        if re.fullmatch(r"TIME\s+WITHOUT\s+TIME\s+ZONE", t):
            t = "TIME"
        if t.startswith("TIMESTAMP") and "LOCAL TIME ZONE" in t:
            t = "TIMESTAMP_LTZ"
        elif t.startswith("TIMESTAMP") and t not in ("TIMESTAMP_LTZ", "TIMESTAMPLTZ", "TIMESTAMPTZ"):
            t = "TIMESTAMP"
        name = _ALIASES.get(t)
        if name in (*_COMPOSITE, "MULTISET"):
            msg = f"Type {name} needs its parts, e.g. ROW<a INT>, ARRAY<INT>, MAP<STRING, INT>"
            raise SqlError(msg)
        if name is None:
            known = ", ".join(sorted(set(_ALIASES.values())))
            msg = f"Unknown type {text.strip()!r}; supported: {known}"
            raise SqlError(msg)
        if name in ("VARIANT", "BITMAP") and "(" in text:  # Flink's parser: 'Encountered "("'
            msg = f"Type {name} takes no parameters: {text.strip()}"
            raise SqlError(msg)
        if name == "DECIMAL":
            p = args[0] if args else 10
            s = args[1] if len(args) > 1 else 0
            if not 1 <= p <= 38:  # Flink's DecimalType (Arrow's decimal128 has the same bounds)
                msg = f"Decimal precision must be between 1 and 38 (both inclusive): {text.strip()}"
                raise SqlError(msg)
            if s > p:
                msg = (f"Decimal scale must be between 0 and the precision {p} (both inclusive): "
                       f"{text.strip()}")
                raise SqlError(msg)
            return SqlType(name, p, s, nullable)
        if name in ("TIMESTAMP", "TIMESTAMP_LTZ"):
            return SqlType(name, args[0] if args else (6 if name == "TIMESTAMP" else 6), None, nullable)
        if name == "TIME":  # Flink 2.3: TIME is TIME(0); TIME(p > 3) is TIME(3) (milliseconds of the day)
            return SqlType(name, min(args[0] if args else 0, 3), None, nullable)
        if t in ("CHAR", "BINARY"):  # Flink: CHAR is CHAR(1), BINARY is BINARY(1)
            return SqlType(name, args[0] if args else 1, None, nullable, padded=True)
        if t == "VARBINARY" and args and args[0] != _MAX_LENGTH:  # VARBINARY is BYTES, as in Flink
            return SqlType(name, args[0], None, nullable)
        if name == "STRING" and args:
            return SqlType(name, args[0], None, nullable)
        return SqlType(name, None, None, nullable)

    def sql(self) -> str:
        """The Flink SQL spelling, e.g. ``DECIMAL(10, 2)``, ``TIMESTAMP(3)``, ``ROW<`a` INT>``."""
        if self.name == "ROW":
            inner = ", ".join(f"`{n.replace('`', '``')}` {t.sql()}" for n, t in self.fields)
            base = f"ROW<{inner}>" if self.class_name is None else \
                f"STRUCTURED<'{self.class_name.replace(chr(39), chr(39) * 2)}', {inner}>"
        elif self.name in ("ARRAY", "MAP", "MULTISET"):
            base = f"{self.name}<{', '.join(t.sql() for t in self.children)}>"
        elif self.name == "DECIMAL":
            base = f"DECIMAL({self.precision}, {self.scale})"
        elif self.name in ("TIMESTAMP", "TIMESTAMP_LTZ", "TIME"):
            base = f"{self.name}({self.precision or 0})"
        elif self.name == "STRING" and self.precision is not None:
            base = f"{'CHAR' if self.padded else 'VARCHAR'}({self.precision})"
        elif self.name == "BYTES" and self.precision is not None:
            base = f"{'BINARY' if self.padded else 'VARBINARY'}({self.precision})"
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
            p = self.precision or 0
            unit = "ms" if p <= 3 else "us" if p <= 6 else "ns"
            return pa.timestamp(unit, tz="UTC" if n == "TIMESTAMP_LTZ" else None)
        if n == "TIME":
            return pa.time64("us")
        if n == "ROW":
            return pa.struct([pa.field(name, t.to_arrow()) for name, t in self.fields])
        if n == "ARRAY":
            return pa.list_(self.children[0].to_arrow())
        if n == "MAP":
            return pa.map_(self.children[0].to_arrow(), self.children[1].to_arrow())
        if n == "MULTISET":
            return self.counted().to_arrow()
        return _ARROW[n]

    def arrow_field(self, name: str) -> pa.Field:
        """The Arrow field of a column ``name`` of this type.

        When the Arrow type alone reads back as another SQL type (TIMESTAMP(0) and TIMESTAMP(3)
        are both ``timestamp[ms]``; CHAR(3), VARCHAR(5) and STRING all ``string``), the SQL type
        rides in the field's metadata (:data:`SQL_TYPE_KEY`), so a column keeps Flink's type
        through the plan: what ``CAST(t AS STRING)``, TYPEOF, DESCRIBE and a sink's type check see.
        Nullability is not carried (see :meth:`of_field`).
        """
        at = self.to_arrow()
        t = self.with_nullable(True)
        if (self.is_composite and not holds_time(self)) or SqlType.from_arrow(at) == t:
            return pa.field(name, at)
        return pa.field(name, at, metadata={SQL_TYPE_KEY: t.sql().encode()})

    @staticmethod
    def of_field(f: pa.Field) -> SqlType:
        """The SQL type of a column: its metadata's (see :meth:`arrow_field`), else its Arrow type's.

        The metadata is used only when it agrees with the Arrow type (a field rebuilt with another
        type keeps the metadata of the old one).
        """
        text = (f.metadata or {}).get(SQL_TYPE_KEY)
        if text is not None:
            t = SqlType.parse(text.decode())
            if t.to_arrow() == f.type:
                return t
        return SqlType.from_arrow(f.type)

    def duckdb_type(self):
        """:meth:`duckdb` as a sqlglot ``DataType`` node (for a CAST built as a tree).

        sqlglot has no ``TIMESTAMPTZ_NS`` (a TIMESTAMP_LTZ(7..9)): a type naming it is kept as
        DuckDB's text, unparsed.
        """
        from sqlglot import exp

        text = self.duckdb()
        return exp.DataType.build(text, dialect="duckdb", udt="TIMESTAMPTZ_NS" in text)

    def duckdb(self) -> str:
        """The DuckDB type used to CAST to this type in compiled expressions."""
        n = self.name
        if n == "DECIMAL":
            return f"DECIMAL({self.precision}, {self.scale})"
        if n == "TIMESTAMP":
            p = self.precision or 0
            return "TIMESTAMP_MS" if p <= 3 else "TIMESTAMP" if p <= 6 else "TIMESTAMP_NS"
        if n == "TIMESTAMP_LTZ":
            return "TIMESTAMPTZ" if (self.precision or 0) <= 6 else "TIMESTAMPTZ_NS"
        if n == "TIME":
            return "TIME"
        if n == "ROW":
            inner = ", ".join('"' + name.replace('"', '""') + '" ' + t.duckdb() for name, t in self.fields)
            return f"STRUCT({inner})"
        if n == "ARRAY":
            return self.children[0].duckdb() + "[]"
        if n == "MAP":
            return f"MAP({self.children[0].duckdb()}, {self.children[1].duckdb()})"
        if n == "MULTISET":
            return self.counted().duckdb()
        return _DUCK[n]

    @property
    def is_numeric(self) -> bool:
        """True for integer, floating and decimal types."""
        return self.name in ("TINYINT", "SMALLINT", "INT", "BIGINT", "FLOAT", "DOUBLE", "DECIMAL")

    @property
    def is_time(self) -> bool:
        """True for TIMESTAMP and TIMESTAMP_LTZ (candidate time attributes)."""
        return self.name in ("TIMESTAMP", "TIMESTAMP_LTZ")

    def watermark_refusal(self) -> str | None:
        """Why this type cannot carry a WATERMARK (Flink 2.3's words), or None when it can.

        As Flink's ``DefaultSchemaResolver``: a time attribute is a TIMESTAMP or TIMESTAMP_LTZ of
        precision 0 to 3 (a bare ``TIMESTAMP`` is TIMESTAMP(6): refused); recorded by
        ``scripts/flink_rowtime_precision.py``.
        """
        if self.is_time and (self.precision if self.precision is not None else 6) <= 3:
            return None
        return ("Invalid data type of time field for watermark definition. The field must be of type "
                "TIMESTAMP(p) or TIMESTAMP_LTZ(p), the supported precision 'p' is from 0 to 3, but the "
                f"time field type is {self.sql()}")

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
        if pa.types.is_struct(t):
            return SqlType.row([(f.name, SqlType.from_arrow(f.type)) for f in t])
        if pa.types.is_map(t):
            return SqlType.map(SqlType.from_arrow(t.key_type), SqlType.from_arrow(t.item_type))
        if pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t):
            return SqlType.array(SqlType.from_arrow(t.value_type))
        for name, at in _ARROW.items():
            if t == at:
                return SqlType(name)
        if pa.types.is_date(t):
            return SqlType("DATE")
        if pa.types.is_time(t):  # the precision rides in the field's metadata (arrow_field)
            return SqlType("TIME", 0)
        if pa.types.is_integer(t):
            return SqlType("BIGINT")
        if pa.types.is_interval(t) or pa.types.is_duration(t):
            msg = ("An INTERVAL value cannot be a result column yet; CAST it AS STRING for Flink's text "
                   "('+0 00:00:01.000', '+1-02')")
            raise SqlError(msg)
        msg = f"Unsupported result type {t}"
        raise SqlError(msg)


#: The Arrow field metadata key that holds a column's SQL type (see :meth:`SqlType.arrow_field`).
SQL_TYPE_KEY = b"streamsql.sql_type"

_ARROW = {
    "STRING": pa.string(), "BOOLEAN": pa.bool_(), "TINYINT": pa.int8(), "SMALLINT": pa.int16(),
    "INT": pa.int32(), "BIGINT": pa.int64(), "FLOAT": pa.float32(), "DOUBLE": pa.float64(),
    "DATE": pa.date32(), "BYTES": pa.binary(), "VARIANT": pa.string(), "BITMAP": pa.binary(),
}
_DUCK = {
    "STRING": "VARCHAR", "BOOLEAN": "BOOLEAN", "TINYINT": "TINYINT", "SMALLINT": "SMALLINT",
    "INT": "INTEGER", "BIGINT": "BIGINT", "FLOAT": "FLOAT", "DOUBLE": "DOUBLE", "DATE": "DATE",
    "BYTES": "BLOB", "VARIANT": "VARCHAR", "BITMAP": "BLOB",
}


_INT_RANK = {"TINYINT": 1, "SMALLINT": 2, "INT": 3, "BIGINT": 4}
#: The largest length of a VARCHAR or VARBINARY: ``VARBINARY(2147483647)`` is BYTES in Flink.
_MAX_LENGTH = 2147483647


def assignable(src: SqlType, dst: SqlType) -> bool:
    """Whether a ``src`` query column may be written to a ``dst`` sink column without a CAST.

    As Flink's INSERT type check: the same type family and no narrowing (integers widen,
    integers and decimals go to DECIMAL/FLOAT/DOUBLE, FLOAT to DOUBLE, strings of any length,
    timestamps of any precision). An INSERT also takes FLOAT/DOUBLE into DECIMAL
    (:func:`sink_assignable`).
    """
    a, b = src.name, dst.name
    if a in _COMPOSITE or b in _COMPOSITE:  # field by field, by position (names may differ)
        return a == b and len(src.children) == len(dst.children) and all(
            assignable(x, y) for x, y in zip(src.children, dst.children))
    if a == b:
        return True
    if a in _INT_RANK and b in _INT_RANK:
        return _INT_RANK[a] <= _INT_RANK[b]
    if a in _INT_RANK and b in ("DECIMAL", "FLOAT", "DOUBLE"):
        return True
    if a == "DECIMAL" and b in ("FLOAT", "DOUBLE"):
        return True
    return a == "FLOAT" and b == "DOUBLE"


def sink_assignable(src: SqlType, dst: SqlType) -> bool:
    """Whether an INSERT may write a ``src`` query column to a ``dst`` sink column (cast on the way).

    :func:`assignable`, and also FLOAT or DOUBLE into DECIMAL, which Flink 2.3's INSERT casts
    implicitly (rounded to the scale, NULL when it does not fit: compat case
    ``sink_double_into_decimal``) rather than refusing as a type mismatch, and a TIMESTAMP into
    DATE (its date: compat case ``ctas_declared_columns``) or TIME (its time of day cut to the
    column's p: ``scripts/flink_time_break.py``, sink case ``ts_into_t``). Not yet TIMESTAMP and
    TIMESTAMP_LTZ into each other, which Flink casts implicitly too (in the session's time zone).
    """
    return assignable(src, dst) or (src.name in ("FLOAT", "DOUBLE") and dst.name == "DECIMAL") or (
        src.name == "TIMESTAMP" and dst.name in ("DATE", "TIME"))


#: Flink's implicit casts between different types (LogicalTypeCasts): target -> the sources it takes.
_IMPLICIT_FROM = {
    "SMALLINT": ("TINYINT",), "INT": ("TINYINT", "SMALLINT"), "BIGINT": ("TINYINT", "SMALLINT", "INT"),
    "FLOAT": ("TINYINT", "SMALLINT", "INT", "BIGINT", "DECIMAL"),
    "DOUBLE": ("TINYINT", "SMALLINT", "INT", "BIGINT", "DECIMAL", "FLOAT"),
    "DECIMAL": ("TINYINT", "SMALLINT", "INT", "BIGINT", "FLOAT", "DOUBLE"),
    "DATE": ("TIMESTAMP",), "TIME": ("TIMESTAMP",), "TIMESTAMP": ("TIMESTAMP_LTZ",),
    "TIMESTAMP_LTZ": ("TIMESTAMP",),
}


def implicit_cast(src: SqlType, dst: SqlType) -> bool:
    """Whether Flink casts ``src`` to ``dst`` implicitly (``LogicalTypeCasts.supportsImplicitCast``).

    The check of a column a ``CREATE TABLE (cols) ... AS SELECT`` declares over a query column of
    that name: never a nullable type into a NOT NULL one; within a type, any length, precision or
    scale; integers widen; numbers into DECIMAL, DOUBLE (and all but DOUBLE into FLOAT); a
    TIMESTAMP into DATE or TIME; TIMESTAMP and TIMESTAMP_LTZ into each other; any string into VARCHAR; a
    CHAR(n) only from a CHAR, which the INSERT's check tells (our literals are STRINGs: the query
    column's type alone cannot); ROW, ARRAY and MAP child by child.
    """
    if src.nullable and not dst.nullable:
        return False
    a, b = src.name, dst.name
    if a in _COMPOSITE or b in _COMPOSITE:
        return a == b and len(src.children) == len(dst.children) and all(
            implicit_cast(x, y) for x, y in zip(src.children, dst.children))
    return a == b or a in _IMPLICIT_FROM.get(b, ())


def duckdb_cast(expr: str, src: SqlType, dst: SqlType, depth: int = 0,
                leaf: Callable[[str, SqlType, SqlType], str | None] | None = None) -> str:
    """DuckDB SQL casting ``expr`` (of type ``src``) to ``dst``; ROW fields go by position.

    Flink assigns a ROW to a ROW field by field whatever their names (``ROW(1, 'a')``, whose
    fields are ``EXPR$0, EXPR$1``, into ``ROW<a INT, b STRING>``); DuckDB casts STRUCTs by name,
    so a ROW whose names differ is rebuilt with ``struct_pack``, inside arrays too.

    ``leaf``: the SQL of a cast between two types that are not ROW, ARRAY or MAP, or None for the
    sink's (:func:`_scalar_cast`); given, a composite ``src`` other than ``dst`` is always rebuilt
    part by part, so that each part goes through it (an explicit CAST's Java narrowing of a field).
    """
    if not _names_differ(src, dst) and (leaf is None or not src.is_composite or src == dst):
        return (leaf and leaf(expr, src, dst)) or _scalar_cast(expr, src, dst)
    expr = f"({expr})"
    if dst.name == "ROW":
        fields = ", ".join(
            f'"{dn.replace(chr(34), chr(34) * 2)}" := '
            + duckdb_cast(f"struct_extract({expr}, {_sql_str(sn)})", st, dt, depth + 1, leaf)
            for (sn, st), (dn, dt) in zip(src.fields, dst.fields))
        return f"CASE WHEN {expr} IS NULL THEN NULL ELSE struct_pack({fields}) END"
    v = f"__e{depth}"
    if dst.name == "ARRAY":
        element = duckdb_cast(v, src.children[0], dst.children[0], depth + 1, leaf)
        return f"list_transform({expr}, lambda {v}: {element})"
    key = duckdb_cast(f"{v}.key", src.children[0], dst.children[0], depth + 1, leaf)
    value = duckdb_cast(f"{v}.value", src.children[1], dst.children[1], depth + 1, leaf)
    return (f"map_from_entries(list_transform(map_entries({expr}), "
            f"lambda {v}: struct_pack(key := {key}, value := {value})))")


#: The smallest DOUBLE Java's ``(float)`` rounds to Infinity (Float.MAX_VALUE + half an ulp, a tie
#: rounded to the even Infinity); DuckDB fails on it and above, and rounds as Java below it.
_FLOAT_OVER = 3.4028235677973366e38


def _scalar_cast(expr: str, src: SqlType, dst: SqlType) -> str:
    """``CAST(expr AS dst)`` as Flink writes into a sink column of type ``dst``.

    As Flink's sink type enforcers: a string is cut to VARCHAR(n)'s length (DuckDB ignores it)
    and blank-padded to CHAR(n)'s, bytes cut to VARBINARY(n)'s and zero-padded to BINARY(n)'s
    (:func:`bounded_bytes_sql`); a number that does not fit DECIMAL(p, s) is NULL (DuckDB
    fails); a DOUBLE past FLOAT's range is ±Infinity as Java's ``(float)`` (DuckDB fails); a
    timestamp of a higher precision loses its extra digits as Flink's CAST cuts them
    (:mod:`streamsql.core.timestamp_precision`; DuckDB rounds). A string or bytes value already of
    type ``dst`` (same length and padding) is not touched: Flink plans no cast between equal types,
    so a BINARY(2) column that a JSON source read as 3 bytes reaches a BINARY(2) sink column as 3
    bytes (compat case ``binary_same_type_sink``, PyFlink 2.3).
    """
    if src.name == dst.name in ("BYTES", "STRING") \
            and (src.precision, src.padded) == (dst.precision, dst.padded):
        return expr
    if dst.name == "BYTES" and dst.precision is not None:
        return bounded_bytes_sql(f"CAST({expr} AS BLOB)", dst)
    if dst.padded:  # DuckDB's rpad also cuts a longer string to the length
        return f"rpad(CAST({expr} AS VARCHAR), {dst.precision}, ' ')"
    if dst.name == "STRING" and dst.precision is not None:
        return f"left(CAST({expr} AS VARCHAR), {dst.precision})"
    if src.name == "DOUBLE" and dst.name == "FLOAT":  # Java's (float): ±Infinity past the range
        return (f"CASE WHEN ({expr}) >= {_FLOAT_OVER!r} THEN CAST('inf' AS FLOAT) "
                f"WHEN ({expr}) <= {-_FLOAT_OVER!r} THEN CAST('-inf' AS FLOAT) "
                f"ELSE CAST({expr} AS FLOAT) END")
    if dst.name == "DECIMAL" and src.is_numeric:  # a DOUBLE by its shortest text, as the CAST operator
        text = f"CAST({expr} AS VARCHAR)" if src.name == "DOUBLE" else expr
        return f"TRY_CAST({text} AS {dst.duckdb()})"
    if dst.is_time and src.is_time and (src.precision or 0) > (dst.precision or 0):  # cut, as Flink
        expr = truncate_sql(expr, dst.precision or 0, source=src.precision or 0,
                            ltz=src.name == "TIMESTAMP_LTZ")
    if dst.name == "TIME" and src.name in ("TIME", "TIMESTAMP") \
            and (src.precision or 0) > (dst.precision or 0):
        return truncate_time_sql(expr, dst.precision or 0)
    return f"CAST({expr} AS {dst.duckdb()})"


def bounded_bytes_sql(expr: str, dst: SqlType) -> str:
    """DuckDB SQL of the BLOB ``expr`` at ``dst``'s length, as Flink's CAST to BINARY(n) / VARBINARY(n).

    Flink 2.3 cuts a longer value to n bytes and pads a shorter one to BINARY(n) with zero bytes
    (``CAST(X'0102' AS BINARY(4))`` is ``01020000``, ``CAST(X'010203' AS VARBINARY(2))`` ``0102``:
    conformance cases); DuckDB's BLOB has no length. Over the hexadecimal text (two digits a byte),
    which DuckDB pads and cuts. ``dst`` without a length (BYTES): ``expr`` unchanged.
    """
    if dst.precision is None:
        return expr
    digits = 2 * dst.precision
    hexed = f"rpad(hex({expr}), {digits}, '0')" if dst.padded else f"left(hex({expr}), {digits})"
    return f"unhex({hexed})"


def hashable(v):
    """A collected value (``to_pylist``) with its ROW (dict), ARRAY and MAP (list) parts as tuples.

    Operators key state by Python values; Arrow builds the same ROW, ARRAY or MAP back from the
    tuples (fields by position, elements, key/value pairs).
    """
    if isinstance(v, dict):
        return tuple(hashable(x) for x in v.values())
    if isinstance(v, (list, tuple)):
        return tuple(hashable(x) for x in v)
    return v


def holds_time(t: SqlType) -> bool:
    """Whether a composite type has a part only the field's metadata tells.

    A TIME(p > 0) (its precision), a VARIANT (a ``string`` in Arrow), a BITMAP (a ``binary``), or a
    structured type's class name (the type itself too).
    """
    return t.class_name is not None or any(
        (c.name == "TIME" and c.precision) or c.name in ("VARIANT", "BITMAP")
        or (c.is_composite and holds_time(c)) for c in t.children)


def _sql_str(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _names_differ(src: SqlType, dst: SqlType) -> bool:
    if src.name != dst.name or not src.is_composite or len(src.children) != len(dst.children):
        return False
    if src.name == "ROW" and src.field_names != dst.field_names:
        return True
    return any(_names_differ(a, b) for a, b in zip(src.children, dst.children))


class _TypeReader:
    """Reads one composite type from the front of a type text (recursive descent)."""

    _NAME = re.compile(r"\s*(`(?:[^`]|``)*`|[A-Za-z_$][A-Za-z0-9_$]*)")

    def __init__(self, text: str):
        self.text = text

    def composite(self) -> tuple[SqlType, str]:
        """The composite type at the front of ``self.text`` and the text after it."""
        m = re.match(r"\s*(ROW|STRUCTURED|STRUCT|ARRAY|MAP|MULTISET)\s*([<(])", self.text, re.IGNORECASE)
        kind, close = _ALIASES[m.group(1).upper()], ">" if m.group(2) == "<" else ")"
        rest = self.text[m.end():]
        class_name = None
        if m.group(1).upper() == "STRUCTURED":  # STRUCTURED<'com.example.User', name STRING, ...>
            cm = re.match(r"\s*'((?:[^']|'')*)'\s*,", rest)
            if cm is None:
                self._fail(rest)
            class_name, rest = cm.group(1).replace("''", "'"), rest[cm.end():]
        parts: list[tuple[str | None, SqlType]] = []
        while True:
            name = None
            if kind == "ROW":
                nm = self._NAME.match(rest)
                if nm is None:
                    self._fail(rest)
                name, rest = nm.group(1), rest[nm.end():]
                name = name[1:-1].replace("``", "`") if name.startswith("`") else name
            t, rest = self._type(rest)
            parts.append((name, t))
            rest = rest.lstrip()
            if rest.startswith(","):
                rest = rest[1:]
                continue
            if not rest.startswith(close):
                self._fail(rest)
            rest = rest[1:]
            break
        nullable = True
        nn = re.match(r"\s*NOT\s+NULL\b", rest, re.IGNORECASE)
        if nn:
            nullable, rest = False, rest[nn.end():]
        types = [t for _, t in parts]
        if class_name is not None:
            return SqlType.structured(class_name, [(n, t) for n, t in parts], nullable), rest
        if kind == "ROW":
            return SqlType.row([(n, t) for n, t in parts], nullable), rest
        if len(types) != (1 if kind in ("ARRAY", "MULTISET") else 2):
            self._fail(self.text)
        return SqlType(kind, nullable=nullable, children=tuple(types)), rest

    def _type(self, rest: str) -> tuple[SqlType, str]:
        if re.match(r"\s*(ROW|STRUCTURED|STRUCT|ARRAY|MAP|MULTISET)\s*[<(]", rest, re.IGNORECASE):
            return _TypeReader(rest).composite()
        depth, i = 0, 0
        while i < len(rest):  # a simple type ends at a top-level ',' or the closing bracket
            c = rest[i]
            if c == "(":
                depth += 1
            elif c == ")" and depth:
                depth -= 1
            elif c in ",>)" and not depth:
                break
            i += 1
        return SqlType.parse(rest[:i]), rest[i:]

    def _fail(self, rest: str):
        msg = f"Unknown type {self.text.strip()!r} near {rest.strip()[:20]!r}"
        raise SqlError(msg)


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
        return pa.schema([f.type.arrow_field(f.name) for f in self.fields])

    @staticmethod
    def from_arrow(schema: pa.Schema) -> Schema:
        """The SQL schema of an Arrow schema (see :meth:`SqlType.of_field`)."""
        return Schema([Field(f.name, SqlType.of_field(f)) for f in schema])

    def __len__(self) -> int:
        return len(self.fields)

    def __iter__(self):
        return iter(self.fields)

    def __repr__(self) -> str:
        return "Schema(" + ", ".join(f"{f.name} {f.type}" for f in self.fields) + ")"
