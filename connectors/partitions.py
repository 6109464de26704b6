r"""Partition folders of a filesystem table: ``k1=v1/k2=v2/``, as Flink's ``PartitionPathUtils``.

A partitioned table (``PARTITIONED BY (k1, k2)``) keeps each row in the folder of its partition
columns' values, and the records in the files hold the other columns only (Flink's
``ProjectionEncoder``). A value is written as its text (an integer's digits, a boolean's
``true``/``false``, a string as is); NULL or an empty text (not a blank one) is
``'partition.default-name'`` (``__DEFAULT_PARTITION__``), which a read gives back as NULL (Flink's
``RowDataPartitionComputer`` / ``restorePartValueFromType``; Flink 2.3's streaming read fails on a
default-name folder unless a filter prunes it, "Path should not be null or empty: null"). Names
and values are escaped as Flink's ``escapePathName``: control characters, ``"#%'*/:=?\\{}[]^``
and DEL become ``%XX``.

Partition columns may be STRING, CHAR, VARCHAR, BOOLEAN or an integer type here; other types are
refused (their text in a folder name is Flink's Java ``toString``, not reproduced yet).
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from streamsql.core.catalog import TableDef
from streamsql.core.errors import ConfigError

DEFAULT_NAME = "__DEFAULT_PARTITION__"
_ESCAPED = {*range(0x01, 0x20), *map(ord, "\"#%'*/:=?\\\x7f{}[]^")}
#: The integer types a partition column may have (its folder text: the digits).
INTEGER_TYPES = ("TINYINT", "SMALLINT", "INT", "INTEGER", "BIGINT")
_TYPES = ("STRING", "VARCHAR", "CHAR", "BOOLEAN", *INTEGER_TYPES)


def escape(text: str) -> str:
    """Flink's ``PartitionPathUtils.escapePathName``: ``'a/b'`` → ``'a%2Fb'``."""
    return "".join(f"%{ord(c):02X}" if ord(c) in _ESCAPED else c for c in text)


def unescape(text: str) -> str:
    """Flink's ``unescapePathName``: ``'%2F'`` → ``'/'`` (a ``%`` without two hex digits stays)."""
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
    return len(two) == 2 and all(ch in "0123456789abcdefABCDEF" for ch in two)


def check_partition_columns(table: TableDef) -> None:
    """Raise ConfigError for a partition column of a type this connector cannot name a folder by."""
    for key in table.partition_keys:
        c = table.column(key)
        if c is None or c.type is None or c.type.name.upper() not in _TYPES or not c.is_physical:
            what = "not a physical column" if c is None or not c.is_physical else f"of type {c.type}"
            msg = (f"Table '{table.name}': partition column '{key}' is {what}: a filesystem table is "
                   f"partitioned here by STRING, CHAR, VARCHAR, BOOLEAN or integer columns")
            raise ConfigError(msg, table=table.name, column=key)


def bucket_codes(table: pa.Table, keys: list[str], default: str) -> tuple[np.ndarray, list[str]]:
    """Each row's partition folder: ``(codes, folders)``, row i in ``folders[codes[i]]``.

    ``folders`` come in the order of their first rows.

    A folder is ``k1=v1/k2=v2/`` (escaped, module docstring); ``keys`` are the partition columns
    of ``table``, in the table's PARTITIONED BY order.
    """
    parts = []
    for key in keys:
        col = table.column(key)
        if pa.types.is_boolean(col.type):
            text = pc.if_else(col, "true", "false")
        else:
            text = col.cast(pa.string())
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


def canonical_text(value: str | None, integer: bool) -> str | None:
    """The text a partition value is pruned by: an integer key's as ``int`` prints it, else as is.

    ``'07'``, ``' 7'``, ``'+7'`` → ``'7'`` for an integer key (Flink's partition pruning compares the
    typed values, ``restorePartValueFromType``); a text that is no integer stays (it is read as
    such and fails then).
    """
    if value is None or not integer:
        return value
    try:
        return str(int(value.strip()))
    except ValueError:
        return value


def value_array(value: str | None, sql_type, rows: int) -> pa.Array:
    """``rows`` copies of a partition ``value`` (its folder's text) as the column's type.

    Raises:
        ConfigError: the text is not a value of the type (a folder written by someone else).
    """
    arrow = sql_type.to_arrow()
    if value is None:
        return pa.nulls(rows, arrow)
    try:
        if pa.types.is_boolean(arrow):
            v: object = value.strip().lower() == "true"
        elif pa.types.is_integer(arrow):
            v = int(value.strip())
        else:
            v = value
        return pa.array([v] * rows, arrow)
    except (ValueError, pa.ArrowInvalid) as e:
        msg = f"Partition value '{value}' is not a {sql_type}: {e}"
        raise ConfigError(msg) from e
