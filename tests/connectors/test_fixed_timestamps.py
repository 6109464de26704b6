"""The numpy reading of fixed-width timestamp text (connectors/formats/fixed_timestamps.py).

Checked against Python's own calendar (``datetime``), an independent reading of the same text,
over random dates of the whole range it takes; every text it must leave to the general path
(mixed widths, a NULL, a day past its month's end, 24:00, fields out of range, dates beyond
int64 nanoseconds) gives None, and the json decoder then still reads the batch as Flink does.
"""

from __future__ import annotations

import datetime as dt
import random

import pyarrow as pa
import pytest
from streamsql.connectors.formats import make_decoder
from streamsql.connectors.formats.fixed_timestamps import parse_fixed

from tests.connectors.helpers import schema_of

EPOCH = dt.datetime(1970, 1, 1)


def _ns(text: str) -> int:
    """Epoch ns of ``yyyy-MM-dd?HH:mm:ss[.f…f][Z]`` by Python's calendar."""
    base, _, frac = text.rstrip("Z").partition(".")
    v = dt.datetime(int(base[:4]), int(base[5:7]), int(base[8:10]),
                    int(base[11:13]), int(base[14:16]), int(base[17:19]))
    return (v - EPOCH) // dt.timedelta(microseconds=1) * 1000 + (int(frac.ljust(9, "0")) if frac else 0)


def _texts(rng: random.Random, n: int, sep: str, digits: int, zulu: bool) -> list[str]:
    lo, hi = dt.date(1677, 9, 22).toordinal(), dt.date(2262, 4, 10).toordinal()
    out = []
    for _ in range(n):
        day = dt.date.fromordinal(rng.randint(lo, hi))
        t = f"{day.isoformat()}{sep}{rng.randrange(24):02d}:{rng.randrange(60):02d}:{rng.randrange(60):02d}"
        if digits:
            t += "." + "".join(rng.choice("0123456789") for _ in range(digits))
        out.append(t + ("Z" if zulu else ""))
    return out


@pytest.mark.parametrize("digits", [0, 1, 3, 6, 9])
@pytest.mark.parametrize(("sep", "zulu"), [(" ", False), (" ", True), ("T", False), ("T", True)])
def test_fixed_width_text_as_python_reads_it(sep, zulu, digits):
    rng = random.Random(f"{sep}{zulu}{digits}")
    texts = _texts(rng, 400, sep, digits, zulu)
    texts[0] = texts[0][:5] + "02-29" + texts[0][10:]  # a leap day (2000 or another leap year below)
    texts[0] = "2000" + texts[0][4:]
    texts[1] = "1970-01-01" + texts[1][10:]
    texts[2] = "1969-12-31" + sep + "23:59:59" + texts[2][19:]
    got = parse_fixed(pa.array(texts), ord(sep), zulu)
    assert got is not None
    assert got.type == (pa.timestamp("ns", tz="UTC") if zulu else pa.timestamp("ns"))
    assert got.cast(pa.int64()).to_pylist() == [_ns(t) for t in texts]
    # a column read by Arrow's JSON reader in blocks: one chunk per block
    chunked = parse_fixed(pa.chunked_array([texts[:150], texts[150:]]), ord(sep), zulu)
    assert chunked.cast(pa.int64()).to_pylist() == [_ns(t) for t in texts]


@pytest.mark.parametrize("bad", [
    "2023-02-29 10:00:00",   # no leap year: SMART makes it the 28th, the general path decides
    "2024-04-31 10:00:00",
    "2024-01-01 24:00:00",   # SMART: the next midnight
    "2024-01-01 10:60:00",
    "2024-01-01 10:00:60",
    "2024-13-01 10:00:00",
    "2024-00-01 10:00:00",
    "2024-01-00 10:00:00",
    "2024-01-01T10:00:00",   # the other standard's separator
    "2024/01/01 10:00:00",
    "2024-01-01 1a:00:00",
    "2262-04-12 00:00:00",   # beyond int64 nanoseconds
    "1677-09-20 23:59:59",
])
def test_other_text_is_left_to_the_general_path(bad):
    good = "2024-01-01 10:00:00"
    assert parse_fixed(pa.array([good]), ord(" "), False) is not None
    assert parse_fixed(pa.array([good, bad]), ord(" "), False) is None


def test_mixed_widths_nulls_and_empty_are_left_to_the_general_path():
    sp = ord(" ")
    assert parse_fixed(pa.array(["2024-01-01 10:00:00.1", "2024-01-01 10:00:00.12"]), sp, False) is None
    assert parse_fixed(pa.array(["2024-01-01 10:00:00", None]), sp, False) is None
    assert parse_fixed(pa.array([], pa.string()), sp, False) is None
    assert parse_fixed(pa.array(["2024-01-01 10:00:00."]), sp, False) is None  # a point, no digit
    assert parse_fixed(pa.array(["2024-01-01 10:00:00.1234567890"]), sp, False) is None  # 10 digits
    assert parse_fixed(pa.array(["2024-01-01 10:00:00"]), sp, True) is None  # no Z


def test_decoder_batch_with_a_smart_date_reads_as_flink():
    """A batch the numpy path declines is read as before: Flink's SMART resolver clamps the day."""
    dec = make_decoder("json", schema_of(ts="TIMESTAMP(3)"), {})
    texts = ["2024-02-28 10:00:00.500", "2024-02-30 10:00:00.250", "2024-02-29 23:00:00.000"]
    rows = dec.decode([f'{{"ts":"{t}"}}'.encode() for t in texts], lambda i: f"t[0]@{i}").table.to_pylist()
    assert [r["ts"] for r in rows] == [dt.datetime(2024, 2, 28, 10, 0, 0, 500000),
                                      dt.datetime(2024, 2, 29, 10, 0, 0, 250000),
                                      dt.datetime(2024, 2, 29, 23, 0, 0)]


def test_decoder_reads_fixed_width_batch_through_numpy():
    dec = make_decoder("json", schema_of(ts="TIMESTAMP(3)", ltz="TIMESTAMP_LTZ(3)"), {})
    texts = _texts(random.Random(7), 2000, " ", 3, False)
    payloads = [f'{{"ts":"{t}","ltz":"{t}Z"}}'.encode() for t in texts]
    table = dec.decode(payloads, lambda i: f"t[0]@{i}").table
    want = [_ns(t) // 10**6 for t in texts]
    assert table.column("ts").cast(pa.int64()).to_pylist() == want
    assert table.column("ltz").cast(pa.int64()).to_pylist() == want


@pytest.mark.parametrize("text", ["2262-04-11 00:00:00", "2262-04-11 23:47:16", "1677-09-21 23:59:59",
                                  "1677-09-22 00:00:00", "1970-01-01 00:00:00"])
def test_the_ends_of_the_nanosecond_range_read_as_the_general_path(text):
    """The general path's value (its RE2 check passes, then Arrow's cast), or None where it fails."""
    got = parse_fixed(pa.array([text]), ord(" "), False)
    assert got is not None
    assert got.cast(pa.int64()).to_pylist() == [_ns(text)]
    assert got.to_pylist() == pa.array([text]).cast(pa.timestamp("ns")).to_pylist()
