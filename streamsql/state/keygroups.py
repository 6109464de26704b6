"""Key groups of many keys at once: ``crc32(key) % MAX_PARALLELISM``, vectorized where it can be.

The same function as :func:`streamsql.state.base.key_group` (one key) — every stateful operator
places a key in the key group that a later multi-process runtime will route it to, so the
vectorized and the scalar forms must agree bit for bit (tests check it).
"""

from __future__ import annotations

import pickle
import zlib

import numpy as np
import pyarrow as pa

from streamsql.state.base import MAX_PARALLELISM

#: The encoding of a NULL single integer key (never 8 bytes long, so never an integer's).
NULL_INT_KEY = b"\x00"


def _crc32_table() -> np.ndarray:
    table = np.arange(256, dtype=np.uint32)
    for _ in range(8):
        table = np.where(table & 1, (table >> 1) ^ np.uint32(0xEDB88320), table >> 1).astype(np.uint32)
    return table


_CRC32_TABLE = _crc32_table()


def crc32_rows(data: np.ndarray) -> np.ndarray:
    """``zlib.crc32`` of each row of a ``(n, width)`` uint8 array, vectorized over rows."""
    crc = np.full(data.shape[0], 0xFFFFFFFF, dtype=np.uint32)
    for j in range(data.shape[1]):
        crc = _CRC32_TABLE[(crc ^ data[:, j]) & 0xFF] ^ (crc >> 8)
    return crc ^ np.uint32(0xFFFFFFFF)


def int_key_bytes(column: pa.Array | pa.ChunkedArray) -> list[bytes]:
    """The key encoding of a single integer key column: 8 bytes big-endian, ``NULL_INT_KEY`` for NULL."""
    if isinstance(column, pa.ChunkedArray):
        column = column.combine_chunks()
    values = column.fill_null(0).to_numpy(zero_copy_only=False) if column.null_count else column.to_numpy()
    enc = np.ascontiguousarray(values, dtype=">i8").view("V8").tolist()  # bytes, NULs kept
    if column.null_count:
        for i in np.flatnonzero(column.is_null().to_numpy(zero_copy_only=False)):
            enc[i] = NULL_INT_KEY
    return enc


def key_groups(keys: list[bytes]) -> np.ndarray:
    """The key group of each encoded key (uint16 array), vectorized when all are 8 bytes long."""
    n = len(keys)
    joined = b"".join(keys)
    if n and len(joined) == 8 * n and min(map(len, keys)) == 8:
        return (crc32_rows(np.frombuffer(joined, np.uint8).reshape(n, 8)) % MAX_PARALLELISM).astype(np.uint16)
    crc = zlib.crc32
    return np.fromiter((crc(k) % MAX_PARALLELISM for k in keys), np.uint16, count=n)


def with_key_groups(keys: list[bytes]) -> list[bytes]:
    """Backend keys: the 2-byte big-endian key group, then the encoded key."""
    n = len(keys)
    joined = b"".join(keys)
    if n and len(joined) == 8 * n and min(map(len, keys)) == 8:
        data = np.frombuffer(joined, np.uint8).reshape(n, 8)
        out = np.empty((n, 10), np.uint8)
        out[:, :2] = (crc32_rows(data) % MAX_PARALLELISM).astype(">u2").view(np.uint8).reshape(n, 2)
        out[:, 2:] = data
        return out.view("V10").ravel().tolist()
    crc = zlib.crc32
    return [(crc(k) % MAX_PARALLELISM).to_bytes(2, "big") + k for k in keys]


def encode_keys(table: pa.Table, num_keys: int) -> list[bytes]:
    """The encoded grouping key of each row of ``table`` (its first ``num_keys`` columns).

    A single integer column is :func:`int_key_bytes`; anything else is the pickled key tuple —
    the encodings GROUP BY and the window aggregates use for their state keys.
    """
    if num_keys == 1 and pa.types.is_integer(table.schema.field(0).type):
        return int_key_bytes(table.column(0))
    dumps = pickle.dumps
    if num_keys == 0:
        return [dumps((), protocol=5)] * table.num_rows
    cols = [table.column(i).to_pylist() for i in range(num_keys)]
    return [dumps(k, protocol=5) for k in zip(*cols)]
