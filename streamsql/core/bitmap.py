"""BITMAP values: Flink 2.3's set of 32-bit unsigned integers, as RoaringBitmap's bytes.

A BITMAP value travels in batches as Arrow ``binary`` holding RoaringBitmap's *portable
serialization* (the format Java's ``RoaringBitmap.serialize``, CRoaring and pyroaring share):
the bytes Flink's ``BITMAP_TO_BYTES`` gives, so ``BITMAP_TO_BYTES`` is the value itself. In
memory (functions, accumulators) it is a :class:`pyroaring.BitMap`.

As Flink's ``RoaringBitmapData`` (flink-core ``types/bitmap``):

- :func:`to_bytes` runs the run-length optimization first (``toBytes`` calls ``runOptimize``), so
  equal sets give equal bytes whatever built them;
- :func:`from_bytes` reads one bitmap from the start of the bytes and ignores what follows (Java's
  ``deserialize(ByteBuffer)``); bytes that end too early fail as Flink's
  ``java.nio.BufferUnderflowException``, a wrong cookie as Java's ``IOException``;
- :func:`text` is ``RoaringBitmap.toString()``: ``{1,2,4294967295}``, the values unsigned in
  ascending order, cut with ``...`` once the text passes 524,288 characters;
- an INT value ``v`` is the element ``v & 0xFFFFFFFF`` (-1 is 4294967295); :func:`signed` turns an
  element back into Java's int (``BITMAP_TO_ARRAY``).
"""

from __future__ import annotations

import struct

from pyroaring import BitMap

_NO_RUN_COOKIE = 12346  # SERIAL_COOKIE_NO_RUNCONTAINER
_RUN_COOKIE = 12347  # SERIAL_COOKIE (the high 16 bits hold the container count - 1)
_NO_OFFSET_THRESHOLD = 4
_ARRAY_MAX = 4096  # an array container holds up to 4096 values; more is an 8 KiB bitset
_TEXT_LIMIT = 0x80000  # RoaringBitmap.toString stops past this many characters
_U16 = struct.Struct("<H")
_U32 = struct.Struct("<I")


class BitmapFormatError(ValueError):
    """Bytes that are no RoaringBitmap portable serialization (the message says how, in Flink's terms)."""


def from_bytes(data: bytes) -> BitMap:
    """The bitmap serialized at the start of ``data`` (bytes after it are ignored, as Java's).

    Raises:
        BitmapFormatError: ``data`` ends before the bitmap does, or starts with no RoaringBitmap
            cookie (Flink: ``Failed to deserialize bitmap from bytes.`` caused by
            ``java.nio.BufferUnderflowException`` or ``java.io.IOException``).
    """
    size = portable_size(data)
    try:
        return BitMap.deserialize(bytes(data[:size]))
    except ValueError as e:  # sizes that add up but containers CRoaring finds invalid
        msg = f"Failed to deserialize bitmap from bytes ({e})"
        raise BitmapFormatError(msg) from None


def to_bytes(bm: BitMap) -> bytes:
    """``bm``'s portable serialization after run-length optimization (Flink's ``toBytes``)."""
    bm.run_optimize()
    return bm.serialize()


def text(bm: BitMap) -> str:
    """``RoaringBitmap.toString()``: ``{v1,v2,...}`` unsigned ascending, ``...`` past 524,288 characters."""
    out = ["{"]
    length = 1
    for n, v in enumerate(bm):
        if n:
            out.append(",")
            length += 1
            if length > _TEXT_LIMIT:
                out.append("...")
                break
        s = str(v)
        out.append(s)
        length += len(s)
    out.append("}")
    return "".join(out)


def element(value: int) -> int:
    """The bitmap element of an INT ``value`` (its 32 bits read unsigned)."""
    return value & 0xFFFFFFFF


def signed(v: int) -> int:
    """Java's int of a bitmap element (``BITMAP_TO_ARRAY``: 4294967295 is -1)."""
    return v - (1 << 32) if v >= 1 << 31 else v


def portable_size(data: bytes) -> int:
    """How many bytes the portable serialization at the start of ``data`` takes.

    Raises:
        BitmapFormatError: as :func:`from_bytes`.
    """
    view = memoryview(data)
    cookie = _read(_U32, view, 0)
    pos = 4
    if cookie & 0xFFFF == _RUN_COOKIE:
        count = (cookie >> 16) + 1
        runs = bytes(_take(view, pos, (count + 7) // 8))
        pos += len(runs)
    elif cookie == _NO_RUN_COOKIE:
        count = _read(_U32, view, pos)
        pos += 4
        runs = b""
    else:
        msg = f"Failed to deserialize bitmap from bytes: I failed to find one of the right cookies. {cookie}"
        raise BitmapFormatError(msg)
    header = pos
    pos += 4 * count
    if not runs or count >= _NO_OFFSET_THRESHOLD:
        pos += 4 * count  # the offset header
    for i in range(count):
        cardinality = _read(_U16, view, header + 4 * i + 2) + 1
        if runs and runs[i // 8] >> (i % 8) & 1:
            pos += 2 + 4 * _read(_U16, view, pos)
        else:
            pos += 2 * cardinality if cardinality <= _ARRAY_MAX else 8192
    _take(view, 0, pos)
    return pos


def _read(fmt: struct.Struct, view: memoryview, pos: int) -> int:
    return fmt.unpack(_take(view, pos, fmt.size))[0]


def _take(view: memoryview, pos: int, n: int) -> memoryview:
    if pos + n > len(view):
        msg = ("Failed to deserialize bitmap from bytes: they end before the bitmap does (Flink: "
               "java.nio.BufferUnderflowException)")
        raise BitmapFormatError(msg)
    return view[pos:pos + n]
