r"""Partition folders of a filesystem table: ``k1=v1/k2=v2/``, as Flink's ``PartitionPathUtils``.

A partitioned table (``PARTITIONED BY (k1, k2)``) keeps each row in the folder of its partition
columns' values, and the records in the files hold the other columns only (Flink's
``ProjectionEncoder``). A value is written as its text (an integer's digits, a boolean's
``true``/``false``, a string as is); NULL or an empty text (not a blank one) is
``'partition.default-name'`` (``__DEFAULT_PARTITION__``), which a read gives back as NULL (Flink's
``RowDataPartitionComputer`` / ``restorePartValueFromType``; Flink 2.3's streaming read fails on a
default-name folder unless a filter prunes it, "Path should not be null or empty: null"). Names
and values are escaped as Flink's ``escapePathName``: control characters (NUL too), ``"#%'*/:=?\\{}[]^``
and DEL become ``%XX``; the rest (``$``, space, ``!&()+,;<>@|~`` ...) stays (the filesystem case
``special_characters``).

A value's folder text is Flink 2.3's Java ``toString`` of its internal value (``folder_text``):
DATE the days since 1970-01-01 (``19727``), TIME the milliseconds of the day (``37230000``),
TIMESTAMP and TIMESTAMP_LTZ as ``LocalDateTime`` prints the UTC wall time (``2024-01-05T10:20:30.123``,
``2024-01-05T00:00``), DECIMAL its digits with the scale (``0.00``), DOUBLE and FLOAT as Java's
``Double``/``Float.toString`` (``2.5``, ``1.0E20``, ``1.0E-5``). A read gives a folder's text back as
Flink's ``RowPartitionComputer.restorePartValueFromType`` (``value_array``): DATE by
``LocalDate.parse`` (so a folder Flink or this sink wrote fails, "Text '19727' could not be parsed
at index 0"), TIMESTAMP by ``LocalDateTime.parse``; TIME, TIMESTAMP_LTZ and DECIMAL fail ("Can not
convert 0 to type TIME(0) for partition value") unless the read is pruned (a WHERE on partition
columns), whose partition values Flink's planner restores itself and which reads a DECIMAL.

Other types (BYTES, ARRAY, MAP, ROW, ...) are refused at CREATE TABLE (:data:`PARTITION_TYPES`):
Flink 2.3 takes them, and names their folders by a Java object's identity (``t=[B@6c7195d0``).
"""

from __future__ import annotations

import datetime as dt
import re
from decimal import Decimal

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from streamsql.core.catalog import PARTITION_TYPES, TableDef
from streamsql.core.errors import ConfigError, ExecutionError

DEFAULT_NAME = "__DEFAULT_PARTITION__"
_ESCAPED = {*range(0x00, 0x20), *map(ord, "\"#%'*/:=?\\\x7f{}[]^")}
#: The integer types a partition column may have (its folder text: the digits).
INTEGER_TYPES = ("TINYINT", "SMALLINT", "INT", "INTEGER", "BIGINT")
_EPOCH = dt.datetime(1970, 1, 1)
_NANOS = {"s": 10**9, "ms": 10**6, "us": 10**3, "ns": 1}


def escape(text: str) -> str:
    """Flink's ``PartitionPathUtils.escapePathName``: ``'a/b'`` → ``'a%2Fb'``."""
    return "".join(f"%{ord(c):02X}" if ord(c) in _ESCAPED else c for c in text)


def unescape(text: str) -> str:
    """Flink's ``unescapePathName``: ``'%2F'`` → ``'/'`` (a ``%`` without two hex digits stays).

    ``%+F`` is ``chr(15)``: Java's ``Integer.parseInt`` reads a sign.
    """
    out, i = [], 0
    while i < len(text):
        c = text[i]
        if c == "%" and _hex(text[i + 1:i + 3]):
            out.append(chr(int(text[i + 1:i + 3], 16)))
            i += 3
        else:
            out.append(c)
            i += 1
    return "".join(out)


def _hex(two: str) -> bool:
    """Whether Java's ``Integer.parseInt(two, 16)`` is >= 0 for these two characters (a ``+`` sign too)."""
    digits = "0123456789abcdefABCDEF"
    return len(two) == 2 and (two[0] in digits or two[0] == "+") and two[1] in digits


def check_partition_columns(table: TableDef) -> None:
    """Raise ConfigError for a partition column of a type this connector cannot name a folder by."""
    for key in table.partition_keys:
        c = table.column(key)
        if c is None or c.type is None or c.type.name.upper() not in PARTITION_TYPES or not c.is_physical:
            what = "not a physical column" if c is None or not c.is_physical else f"of type {c.type}"
            msg = (f"Table '{table.name}': partition column '{key}' is {what}: a filesystem table is "
                   f"partitioned here by a column of type {', '.join(PARTITION_TYPES)}")
            raise ConfigError(msg, table=table.name, column=key)


def bucket_codes(table: pa.Table, keys: list[str], default: str) -> tuple[np.ndarray, list[str]]:
    """Each row's partition folder: ``(codes, folders)``, row i in ``folders[codes[i]]``.

    ``folders`` come in the order of their first rows.

    A folder is ``k1=v1/k2=v2/`` (escaped, module docstring); ``keys`` are the partition columns
    of ``table``, in the table's PARTITIONED BY order.
    """
    parts = []
    for key in keys:
        text = folder_text(table.column(key))
        blank = pc.fill_null(pc.equal(text, ""), True)  # a blank one stays: Flink's 'k=  /'
        text = pc.if_else(blank, default, text)
        enc = pc.dictionary_encode(text).combine_chunks() if isinstance(text, pa.ChunkedArray) else \
            pc.dictionary_encode(text)
        names = [f"{escape(key)}={escape(v)}/" for v in enc.dictionary.to_pylist()]
        parts.append(np.asarray(names, dtype=object)[enc.indices.to_numpy(zero_copy_only=False)])
    folders = parts[0] if len(parts) == 1 else np.array(["".join(t) for t in zip(*parts)], dtype=object)
    uniques, first, codes = np.unique(folders.astype(str), return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")  # in the order their first rows come, as Flink opens them
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    return rank[codes], [str(uniques[i]) for i in order]


def folder_text(col: pa.Array | pa.ChunkedArray) -> pa.Array | pa.ChunkedArray:
    """Each value's text as Flink 2.3 names its folder (module docstring); NULL stays NULL."""
    t = col.type
    if pa.types.is_boolean(t):
        return pc.if_else(col, "true", "false")
    if pa.types.is_date(t):
        return col.cast(pa.int32()).cast(pa.string())  # Flink's internal DATE: days since the epoch
    if pa.types.is_time(t):
        per_ms = 10**6 // _NANOS[t.unit]
        ticks = col.cast(pa.int64() if t.bit_width == 64 else pa.int32()).cast(pa.int64())
        return (pc.divide(ticks, per_ms) if per_ms > 1 else ticks).cast(pa.string())  # ms of the day
    if pa.types.is_timestamp(t) or pa.types.is_floating(t):
        enc = pc.dictionary_encode(col.combine_chunks() if isinstance(col, pa.ChunkedArray) else col)
        java = _local_date_time if pa.types.is_timestamp(t) else _java_float
        values = enc.dictionary.cast(pa.int64()) if pa.types.is_timestamp(t) else enc.dictionary
        names = pa.array([java(v, t) for v in values.to_pylist()], pa.string())
        return pc.take(names, enc.indices)
    return col.cast(pa.string())  # integers' digits, DECIMAL's with its scale (toPlainString)


def _local_date_time(ticks: int, t: pa.DataType) -> str:
    """Java's ``LocalDateTime.toString`` of a timestamp of ``ticks`` in unit ``t.unit`` (UTC wall time)."""
    secs, nanos = divmod(ticks * _NANOS[t.unit], 10**9)
    v = _EPOCH + dt.timedelta(seconds=secs)
    text = f"{v.year:04d}-{v.month:02d}-{v.day:02d}T{v.hour:02d}:{v.minute:02d}"
    if v.second or nanos:
        text += f":{v.second:02d}"
    if nanos % 10**6 == 0 and nanos:
        text += f".{nanos // 10**6:03d}"
    elif nanos % 1000 == 0 and nanos:
        text += f".{nanos // 1000:06d}"
    elif nanos:
        text += f".{nanos:09d}"
    return text


def _java_float(v: float, t: pa.DataType) -> str:
    """Java's ``Double.toString`` (``Float.toString`` for a FLOAT): ``2.5``, ``1.0E20``, ``1.0E-5``.

    The shortest digits that read back as the value (Java 19+'s; Java 17's differ in rare cases).
    """
    x = np.float32(v) if t == pa.float32() else np.float64(v)
    if not np.isfinite(x):
        return "NaN" if np.isnan(x) else ("Infinity" if x > 0 else "-Infinity")
    if x == 0 or 1e-3 <= abs(x) < 1e7:
        return np.format_float_positional(x, unique=True, trim="0")
    sci = np.format_float_scientific(x, unique=True, trim="0", exp_digits=1)
    return sci.replace("e+", "E").replace("e", "E")


def folder_values(rel_dir: str, keys: list[str], default: str) -> dict[str, str | None] | None:
    """The partition values of the folder ``rel_dir`` (``k1=v1/k2=v2``), or None.

    None when it is no partition folder of ``keys`` (another depth, a component without ``=``,
    another name).
    """
    comps = [c for c in rel_dir.replace("\\", "/").split("/") if c]
    if len(comps) != len(keys):
        return None
    out: dict[str, str | None] = {}
    for comp, key in zip(comps, keys):
        name, eq, value = comp.partition("=")
        if not eq or unescape(name).lower() != key.lower():
            return None
        value = unescape(value)
        out[key] = None if value == default else value
    return out


def canonical_text(value: str | None, kind: str) -> str | None:
    """The text a partition value is pruned by, for a key whose type's name is ``kind``.

    An integer key's as ``int`` prints it (``'07'``, ``' 7'``, ``'+7'`` → ``'7'``), a DECIMAL's
    normalized (``'1.50'`` → ``'1.5'``), a DOUBLE's as Python's ``repr`` (``'1.0E20'`` → ``'1e+20'``),
    a FLOAT's as the ``repr`` of its float32, a DATE/TIME/TIMESTAMP's ISO text (``yyyy-MM-dd
    HH:mm:ss``): Flink's partition pruning compares the typed values. A text that is no value of
    the type stays as it is (Flink's pruning reads it as NULL: it equals no value; a DATE folder
    Flink writes, ``19727``, is one).
    """
    if value is None:
        return value
    try:
        if kind in INTEGER_TYPES:
            return str(int(value.strip()))
        if kind == "DECIMAL":
            return str(Decimal(value.strip()).normalize())
        if kind == "DOUBLE":
            return repr(float(value.strip()))
        if kind == "FLOAT":
            return repr(float(np.float32(float(value.strip()))))
        if kind == "DATE" and _ISO_DATE.fullmatch(value):
            return dt.date.fromisoformat(value).isoformat()
        if kind == "TIME":
            return dt.time.fromisoformat(value).isoformat()
        if kind == "TIMESTAMP" and _SQL_TIMESTAMP.fullmatch(value):
            return dt.datetime.fromisoformat(value).isoformat(sep=" ")
    except (ValueError, ArithmeticError):
        pass
    return value


def literal_text(value: object) -> str | None:
    """A WHERE's constant (a Python value: date, datetime, Decimal, ...) as a folder's text."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dt.datetime):
        return value.isoformat(sep=" ")
    if isinstance(value, (dt.date, dt.time)):
        return value.isoformat()
    return repr(value) if isinstance(value, float) else str(value)


def check_planner_texts(values: dict[str, str | None], table: TableDef) -> None:
    """Fail as Flink 2.3's planner does when it prunes a TIMESTAMP folder's text it cannot parse.

    Flink's pruning reads a TIMESTAMP partition as ``yyyy-MM-dd HH:mm:ss[.S]``: the text its sink
    writes (``2024-01-05T10:20:30.123``) fails the query, "Text '...' could not be parsed,
    unparsed text found at index 10".

    Raises:
        ExecutionError: in those words.
    """
    for key, value in values.items():
        c = table.column(key)
        if value is not None and c.type.name.upper() == "TIMESTAMP" and not _SQL_TIMESTAMP.fullmatch(value):
            at = 10 if _ISO_DATE.fullmatch(value[:10]) else 0
            msg = f"Text '{value}' could not be parsed, unparsed text found at index {at}"
            raise ExecutionError(msg)


def value_array(value: str | None, sql_type, rows: int, pruned: bool = False) -> pa.Array:
    """``rows`` copies of a partition ``value`` (its folder's text) as the column's type.

    As Flink 2.3's ``restorePartValueFromType`` (module docstring); ``pruned``: the read is pruned
    by a WHERE on partition columns, whose values Flink's planner restores (a DECIMAL reads then).

    Raises:
        ConfigError: the text is not a value of the type (a folder written by someone else).
        ExecutionError: a type Flink does not restore (TIME, TIMESTAMP_LTZ, an unpruned DECIMAL), or
            a DATE/TIMESTAMP text ``LocalDate``/``LocalDateTime.parse`` refuses, in Flink's words.
    """
    arrow = sql_type.to_arrow()
    if value is None:
        return pa.nulls(rows, arrow)
    name = sql_type.name.upper()
    if name in ("TIME", "TIMESTAMP_LTZ") or (name == "DECIMAL" and not pruned):
        msg = f"Can not convert {value} to type {sql_type} for partition value"
        raise ExecutionError(msg)
    try:
        if pa.types.is_boolean(arrow):
            v: object = value.strip().lower() == "true"
        elif pa.types.is_integer(arrow):
            v = int(value.strip())
        elif name == "DATE":
            v = _parsed(value, _ISO_DATE, dt.date.fromisoformat)
        elif name == "TIMESTAMP":
            v = _parsed(value, _ISO_DATE_TIME, lambda s: dt.datetime.fromisoformat(s))
        elif name == "DECIMAL":
            v = Decimal(value)
        elif pa.types.is_floating(arrow):
            v = float(value)
        else:
            v = value
        return pa.array([v] * rows, arrow)
    except (ValueError, ArithmeticError, pa.ArrowInvalid) as e:
        msg = f"Partition value '{value}' is not a {sql_type}: {e}"
        raise ConfigError(msg) from e


_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_SQL_TIMESTAMP = re.compile(r"\d{4}-\d{2}-\d{2}( \d{2}:\d{2}:\d{2}(\.\d{1,9})?)?")
_ISO_DATE_TIME = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?")


def _parsed(text: str, iso: re.Pattern, parse):
    """``parse(text)`` of an ISO text, else Java's DateTimeParseException words.

    The index is Java's where the year goes wrong (``-354286`` at 7, ``19727`` at 0); for a text
    that fails later (``2024-1-05``) Java names a later index than the 0 given here.
    """
    if not iso.fullmatch(text):
        sign = 1 if text[:1] in "+-" else 0
        digits = len(text) - sign - len(text[sign:].lstrip("0123456789"))
        at = sign + digits if (sign and 4 <= digits <= 10) or (not sign and digits == 4) else 0
        msg = f"Text '{text}' could not be parsed at index {at}"
        raise ExecutionError(msg)
    return parse(text)
