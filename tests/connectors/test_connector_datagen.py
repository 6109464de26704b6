"""datagen: sequences, random bounds, determinism across restores, rate limiting, options."""

from __future__ import annotations

import time
from decimal import Decimal

import pyarrow as pa
import pytest
from streamsql.connectors.registry import get_connector

from streamsql.core.connector import ConnectorContext
from streamsql.core.errors import ConfigError
from tests.connectors.helpers import table_of

FAST = {"connector": "datagen", "rows-per-second": "1000000000"}


def source(options, **cols):
    src = get_connector("datagen").create_source(
        ConnectorContext(table_of("gen", {**FAST, **options}, **cols), "job", {})
    )
    return src


def drain(src, max_rows=1000, limit=10**6):
    out = []
    while not src.finished() and sum(t.num_rows for t in out) < limit:
        b = src.poll(max_rows, 0.5)
        if b is not None:
            out.append(b.table)
    return pa.concat_tables(out) if out else None


def test_sequence_is_bounded_by_its_end():
    src = source(
        {
            "fields.id.kind": "sequence",
            "fields.id.start": "5",
            "fields.id.end": "1004",
            "fields.s.kind": "sequence",
            "fields.s.start": "1",
            "fields.s.end": "5000",
        },
        id="BIGINT",
        s="STRING",
        v="INT",
    )
    assert src.bounded
    src.open(None)
    t = drain(src, max_rows=333)
    assert t.column("id").to_pylist() == list(range(5, 1005))
    assert t.column("s").to_pylist()[:3] == ["1", "2", "3"]
    assert src.finished() and src.position() == {"rows": 1000}
    assert src.poll(10, 0) is None


def test_number_of_rows_and_unbounded():
    src = source({"number-of-rows": "42"}, v="INT")
    src.open(None)
    assert drain(src).num_rows == 42
    unb = source({}, v="INT")
    assert not unb.bounded
    unb.open(None)
    assert unb.poll(10, 0.5).num_rows == 10 and not unb.finished()


def test_restore_continues_sequence_and_random_values_identically():
    opts = {
        "number-of-rows": "500",
        "fields.id.kind": "sequence",
        "fields.id.start": "1",
        "fields.id.end": "1000",
        "fields.r.min": "0",
        "fields.r.max": "1000000",
        "fields.name.length": "7",
        "fields.name.null-rate": "0.2",
    }
    cols = dict(id="INT", r="BIGINT", name="STRING", d="DOUBLE", p="DECIMAL(10, 3)", b="BOOLEAN")
    whole = source(opts, **cols)
    whole.open(None)
    expected = drain(whole, max_rows=500)
    first = source(opts, **cols)
    first.open(None)
    part = drain(first, max_rows=70, limit=140)
    pos = first.position()
    assert pos == {"rows": 140}
    second = source(opts, **cols)
    second.open(pos)
    rest = drain(second, max_rows=123)
    assert pa.concat_tables([part, rest]).equals(expected)


def test_random_bounds_lengths_null_rate():
    src = source(
        {
            "number-of-rows": "20000",
            "fields.i.min": "-5",
            "fields.i.max": "5",
            "fields.s.length": "20",
            "fields.d.min": "1.5",
            "fields.d.max": "2.5",
            "fields.p.min": "-1.25",
            "fields.p.max": "1.25",
            "fields.n.null-rate": "0.25",
            "fields.t.min": "100",
            "fields.t.max": "101",
            "fields.v.length": "8",
            "fields.v.var-len": "true",
        },
        i="INT",
        s="STRING",
        d="DOUBLE",
        p="DECIMAL(5, 2)",
        n="BIGINT",
        t="TINYINT",
        v="STRING",
        b="BOOLEAN",
        big="BIGINT",
    )
    src.open(None)
    t = drain(src, max_rows=20000)
    i = t.column("i").to_pylist()
    assert min(i) == -5 and max(i) == 5
    s = t.column("s").to_pylist()
    assert {len(x) for x in s} == {20} and set("".join(s)) <= set("0123456789abcdef")
    d = t.column("d").to_pylist()
    assert 1.5 <= min(d) and max(d) <= 2.5
    p = t.column("p").to_pylist()
    assert (
        min(p) == Decimal("-1.25") and max(p) == Decimal("1.25") and t.column("p").type == pa.decimal128(5, 2)
    )
    assert 0.22 < t.column("n").null_count / 20000 < 0.28
    assert set(t.column("t").to_pylist()) == {100, 101}
    assert {len(x) for x in t.column("v").to_pylist()} == set(range(9))
    assert 0.45 < sum(t.column("b").to_pylist()) / 20000 < 0.55
    assert t.column("big").null_count == 0 and len(set(t.column("big").to_pylist())) == 20000


def test_seed_changes_values_deterministically():
    def first_values(seed):
        src = source({"seed": seed, "number-of-rows": "50"}, v="BIGINT")
        src.open(None)
        return drain(src).column("v").to_pylist()

    assert first_values("1") == first_values("1")
    assert first_values("1") != first_values("2")


def test_rate_limit():
    src = get_connector("datagen").create_source(
        ConnectorContext(
            table_of("gen", {"connector": "datagen", "rows-per-second": "200"}, v="INT"), "job", {}
        )
    )
    src.open(None)
    t0 = time.monotonic()
    n = 0
    while time.monotonic() - t0 < 0.5:
        b = src.poll(1000, 0.05)
        n += 0 if b is None else b.num_rows
    elapsed = time.monotonic() - t0
    assert 40 <= n <= 200 * elapsed + 2


def test_option_errors_name_table_and_option():
    with pytest.raises(ConfigError, match=r"Table 'gen'.*'fields.nope.kind'.*names no column"):
        source({"fields.nope.kind": "random"}, v="INT")
    with pytest.raises(ConfigError, match=r"Table 'gen'.*sequence needs 'fields.v.start' and 'fields.v.end'"):
        source({"fields.v.kind": "sequence", "fields.v.start": "1"}, v="INT")
    with pytest.raises(ConfigError, match=r"'fields.v.kind' = 'cyclic'"):
        source({"fields.v.kind": "cyclic"}, v="INT")
    with pytest.raises(ConfigError, match=r"unknown option 'rows-per-sec'"):
        source({"rows-per-sec": "1"}, v="INT")
    with pytest.raises(ConfigError, match=r"'fields.v.min' is greater"):
        source({"fields.v.min": "3", "fields.v.max": "1"}, v="INT")
    with pytest.raises(ConfigError, match=r"exceed the range of TINYINT"):
        source({"fields.v.max": "1000"}, v="TINYINT")


def test_other_types_sequence_and_random():
    src = source(
        {
            "number-of-rows": "100",
            "fields.d.kind": "sequence",
            "fields.d.start": "1",
            "fields.d.end": "100",
            "fields.x.kind": "sequence",
            "fields.x.start": "-5",
            "fields.x.end": "1000",
            "fields.ts.max-past": "60000",
            "fields.raw.length": "3",
        },
        d="DECIMAL(10, 2)",
        x="DOUBLE",
        ts="TIMESTAMP(3)",
        lt="TIMESTAMP_LTZ(3)",
        day="DATE",
        raw="BYTES",
    )
    before = time.time()
    src.open(None)
    t = drain(src)
    assert t.column("d").to_pylist()[:2] == [Decimal("1.00"), Decimal("2.00")]
    assert t.column("x").to_pylist()[:2] == [-5.0, -4.0]
    ts = [v.timestamp() for v in t.column("lt").to_pylist()]
    assert all(before - 61 <= v <= time.time() + 1 for v in ts)
    assert {len(b) for b in t.column("raw").to_pylist()} == {3}
    assert t.schema.field("ts").type == pa.timestamp("ms") and t.column("day").null_count == 0


def test_random_floating_defaults_are_flinks_positive_range():
    """Without min/max a random FLOAT/DOUBLE is drawn from Java's MIN_VALUE to MAX_VALUE, as
    Flink 2.3's datagen (its 200 draws are all positive; ours were spread over +-1.7e308)."""
    src = source({"number-of-rows": "200"}, f="FLOAT", x="DOUBLE")
    src.open(None)
    t = drain(src)
    assert t.num_rows == 200
    assert min(t.column("x").to_pylist()) > 0 and min(t.column("f").to_pylist()) > 0


def test_random_times_of_day_hold_their_precision():
    """A TIME column is a random time of day, in whole units of its precision, the same per seed."""
    def times():
        src = source({"number-of-rows": "200"}, t0="TIME", t3="TIME(3)")
        src.open(None)
        return drain(src)

    t = times()
    t0, t3 = t.column("t0").to_pylist(), t.column("t3").to_pylist()
    assert all(v.microsecond == 0 for v in t0) and any(v.microsecond for v in t3)
    assert all(v.microsecond % 1000 == 0 for v in t3) and len(set(t3)) > 150
    assert times().column("t3").to_pylist() == t3


NESTED = dict(r="ROW<a INT, b ROW<c STRING>>", arr="ARRAY<BIGINT>", m="MAP<INT, STRING>")


def test_nested_columns_take_flinks_per_part_options():
    """ROW, ARRAY and MAP columns, their parts' options under Flink's paths (``fields.r.b.c.length``,
    ``fields.arr.element.min``, ``fields.m.key.max``); Flink's answers: tests/sql (``datagen_nested``)."""
    opts = {"number-of-rows": "200", "fields.r.a.min": "-3", "fields.r.a.max": "3",
            "fields.r.b.c.length": "5",
            "fields.r.b.null-rate": "0.5", "fields.arr.length": "4", "fields.arr.element.min": "10",
            "fields.arr.element.max": "12", "fields.m.key.min": "0", "fields.m.key.max": "1",
            "fields.m.length": "6", "fields.m.value.length": "2", "fields.m.null-rate": "0.25"}
    src = source(opts, **NESTED)
    src.open(None)
    rows = drain(src).to_pylist()
    assert len(rows) == 200
    assert {r["r"]["a"] for r in rows} == {-3, -2, -1, 0, 1, 2, 3}
    inner = [r["r"]["b"] for r in rows]
    assert 50 < inner.count(None) < 150 and {len(b["c"]) for b in inner if b is not None} == {5}
    assert {len(r["arr"]) for r in rows} == {4} and {x for r in rows for x in r["arr"]} == {10, 11, 12}
    maps = [r["m"] for r in rows if r["m"] is not None]
    assert 20 < 200 - len(maps) < 80
    # six keys drawn from {0, 1} collapse into one entry per key, as Java's HashMap.put
    keys = [sorted(k for k, _ in m) for m in maps]
    assert all(k in ([0], [1], [0, 1]) for k in keys) and keys.count([0, 1]) > len(keys) // 2
    assert {len(v) for m in maps for _, v in m} == {2}


def test_nested_columns_resume_identically_and_refuse_what_flink_refuses():
    """A restored source goes on with the same nested values; a nested sequence, a path naming no
    part, and a MAP key that may be NULL are refused at the option."""
    opts = {"number-of-rows": "300", "fields.arr.length": "2"}
    whole = source(opts, **NESTED)
    whole.open(None)
    expected = drain(whole, max_rows=300)
    first = source(opts, **NESTED)
    first.open(None)
    part = drain(first, max_rows=40, limit=80)
    second = source(opts, **NESTED)
    second.open(first.position())
    assert pa.concat_tables([part, drain(second, max_rows=77)]).equals(expected)
    for bad, words in [({"fields.r.kind": "sequence", "fields.r.start": "1", "fields.r.end": "2"},
                        "cannot be a sequence"),
                       ({"fields.r.z.min": "1"}, "names no column"),
                       ({"fields.m.key.null-rate": "0.5"}, "a MAP key cannot be NULL")]:
        with pytest.raises(ConfigError, match=words):
            source(bad, **NESTED)
