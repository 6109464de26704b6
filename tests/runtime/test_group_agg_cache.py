"""GroupAggOperator with its write-behind accumulator cache: checkpoints (snapshot_state, then
the backend snapshot) interleaved with batches, failures that lose the work after a checkpoint,
and restores into a fresh operator must give exactly the changelog of an uninterrupted run —
including with a tiny cache that evicts (writes back) all the time."""

from __future__ import annotations

import random
from collections import defaultdict
from decimal import Decimal

import numpy as np
import pyarrow as pa
import pytest

from streamsql.core.elements import Batch, RowKind
from streamsql.functions.aggregates import AggSpec
from streamsql.runtime.operators.group_agg import GroupAggOperator
from streamsql.state.layout import key_group, key_groups, with_key_groups
from tests.runtime.harness import open_operator
from tests.runtime.oracle import fold

BACKENDS = ["hashmap", "rocksdb"]
T_MS = pa.timestamp("ms")
T_LTZ = pa.timestamp("us", tz="UTC")


def _schemas(key_type):
    inp = pa.schema([("k", key_type), ("x", pa.int64()), ("d", pa.decimal128(10, 2)), ("s", pa.string()),
                     ("ts", T_MS), ("lt", T_LTZ), ("dt", pa.date32())])
    return inp


def _aggs(changelog: bool):
    from streamsql.core.types import SqlType

    big, dec = SqlType("BIGINT"), SqlType("DECIMAL", 10, 2)
    aggs = [AggSpec("count_star", None, SqlType("BIGINT", nullable=False)),
            AggSpec("count", 1, SqlType("BIGINT", nullable=False)),
            AggSpec("sum", 1, big), AggSpec("avg", 2, SqlType("DECIMAL", 38, 6)),
            AggSpec("sum", 2, SqlType("DECIMAL", 38, 2))]
    if changelog:
        aggs += [AggSpec("min_retract", 1, big), AggSpec("max_retract", 3, SqlType("STRING")),
                 AggSpec("count_distinct", 1, SqlType("BIGINT", nullable=False)),
                 AggSpec("max_retract", 4, SqlType("TIMESTAMP", 3))]
    else:
        aggs += [AggSpec("min", 1, big), AggSpec("max", 1, big), AggSpec("max", 3, SqlType("STRING")),
                 AggSpec("min", 2, dec), AggSpec("max", 4, SqlType("TIMESTAMP", 3)),
                 AggSpec("min", 5, SqlType("TIMESTAMP_LTZ", 6)), AggSpec("max", 6, SqlType("DATE"))]
    return aggs


_OUT_TYPES = {"count_star": pa.int64(), "count": pa.int64(), "count_distinct": pa.int64()}


def _operator(key_type, changelog, backend_name, workdir, cache_entries):
    inp = _schemas(key_type)
    aggs = _aggs(changelog)
    fields = [("k", key_type)]
    for i, a in enumerate(aggs):
        if a.func in _OUT_TYPES:
            t = _OUT_TYPES[a.func]
        elif a.func == "avg":
            t = pa.decimal128(38, 6)
        elif a.func == "sum" and a.arg == 2:
            t = pa.decimal128(38, 2)
        else:
            t = inp.field(a.arg).type
        fields.append((f"a{i}", t))
    op = GroupAggOperator(1, aggs, inp, pa.schema(fields))
    return open_group_agg(op, backend_name, workdir, cache_entries)


def open_group_agg(op, backend_name, workdir, cache_entries=None):
    """Open a GROUP BY operator through the shared harness, with a cache size if given."""
    cfg = {} if cache_entries is None else {"state.cache.max-entries": str(cache_entries)}
    return open_operator(op, backend_name, workdir, "group-agg-1", cfg)


def _script(key_type, changelog, seed, n_batches=24):
    """Batches of random rows; with ``changelog``, also retractions of rows inserted earlier."""
    rnd = random.Random(seed)
    if pa.types.is_integer(key_type):
        pool = [None, -(2**31), -1, 0, 1, 2, 3, 255, 256, 2**31 - 1] + list(range(10, 40))
    else:
        pool = [None, "", "a", "b", "ä", "0", "1"] + [f"k{i}" for i in range(30)]
    live, batches = [], []
    for _ in range(n_batches):
        rows, kinds = [], []
        for _ in range(rnd.randint(1, 25)):
            if changelog and live and rnd.random() < 0.35:
                row = live.pop(rnd.randrange(len(live)))
                kinds.append(rnd.choice([RowKind.DELETE, RowKind.UPDATE_BEFORE]))
            else:
                ms = 1_700_000_000_000 + rnd.randint(0, 10**7)
                row = (rnd.choice(pool), rnd.choice([None, rnd.randint(-50, 50)]),
                       rnd.choice([None, Decimal(rnd.randint(-9999, 9999)) / 100]),
                       rnd.choice([None, "x", "yy", "zz", "Z", ""]), ms, ms * 1000 + rnd.randint(0, 999),
                       rnd.randint(18000, 20000))
                live.append(row)
                ins = [RowKind.INSERT, RowKind.UPDATE_AFTER] if changelog else [RowKind.INSERT]
                kinds.append(rnd.choice(ins))
            rows.append(row)
        cols = list(zip(*rows))
        tbl = pa.Table.from_arrays([pa.array(list(c), type=f.type) for c, f in zip(cols, _schemas(key_type))],
                                   schema=_schemas(key_type))
        batches.append(Batch(tbl, np.array(kinds, np.int8) if changelog else None))
    return batches, live


def _changelog(elements):
    out = []
    for el in elements:
        if isinstance(el, Batch):
            out += [(RowKind(k), tuple(r.values())) for k, r in zip(el.kind_array(), el.table.to_pylist())]
    return out


def _run(op, batches):
    """Changelog of each batch, in a canonical order (DuckDB's group order varies)."""
    out = []
    for b in batches:
        out.append(sorted(_changelog(op.process_batch(b, 0)), key=repr))
    return out


KEY_TYPES = {"bigint": pa.int64(), "int": pa.int32(), "string": pa.string()}


CACHES = {"no-cache": 0, "tiny-cache": 3, "default-cache": None}


def _cache_cases() -> list:
    """(backend, key, changelog, cache entries): every cache size with each input kind on each backend
    (12) in the default suite, each with one key type in turn, (cache + changelog + rocksdb) mod 3
    of int, bigint, string, so that each key type meets every value of the others too; the other
    24 of the 36 combinations under -m slow (a key type changes how keys are encoded, not what the
    cache writes back when)."""
    cases = []
    for c, (cache, entries) in enumerate(CACHES.items()):
        for changelog in (False, True):
            for key in KEY_TYPES:
                for b, backend in enumerate(BACKENDS):
                    default = key == ("int", "bigint", "string")[(c + changelog + b) % 3]
                    cases.append(pytest.param(
                        backend, key, changelog, entries, marks=() if default else pytest.mark.slow,
                        id=f"{cache}-{'changelog' if changelog else 'insert-only'}-{key}-{backend}"))
    return cases


@pytest.mark.parametrize(("backend_name", "key", "changelog", "cache_entries"), _cache_cases())
def test_checkpoints_and_restores_match_uninterrupted_run(tmp_path, backend_name, key, changelog,
                                                          cache_entries):
    key_type = KEY_TYPES[key]
    batches, live = _script(key_type, changelog, seed=len(key) * 10 + changelog)
    ref, ref_backend = _operator(key_type, changelog, backend_name, tmp_path / "ref", None)
    expected = _run(ref, batches)
    ref_backend.close()

    # The final result is the aggregate of the rows still live (a simple Python oracle for COUNT(*)).
    counts = defaultdict(int)
    for row in live:
        counts[row[0]] += 1
    final = fold([e for batch in expected for e in batch])
    assert {r[0]: r[1] for r in final} == dict(counts)
    assert len(final) == len(counts)

    make = lambda workdir: _operator(key_type, changelog, backend_name, workdir, cache_entries)  # noqa: E731
    assert checkpointed_run(make, batches, tmp_path) == expected


def checkpointed_run(make, batches, tmp_path):
    """The per-batch changelogs of a run that checkpoints and fails, as a job does.

    Checkpoint every 3 batches; after checkpoints 2, 4 and 5 the attempt goes on 2 more batches
    and then "fails": a fresh operator (``make(workdir) -> (op, backend)``) restores the
    checkpoint and replays from it. Equals an uninterrupted run's when restores are exact.
    """
    op, backend = make(tmp_path / "a0")
    actual, pos, ckpt, attempt = [], 0, 0, 0
    while pos < len(batches):
        step = batches[pos:pos + 3]
        actual += _run(op, step)
        pos += len(step)
        ckpt += 1
        op.snapshot_state(ckpt)
        snap = tmp_path / f"chk-{ckpt}"
        backend.snapshot(str(snap))
        if ckpt in (2, 4, 5) and pos < len(batches):
            _run(op, batches[pos:pos + 2])  # lost: never acknowledged by a later checkpoint
            backend.close()
            attempt += 1
            op, backend = make(tmp_path / f"a{attempt}")
            backend.restore(str(snap))
    backend.close()
    return actual


@pytest.mark.parametrize("backend_name", BACKENDS)
def test_snapshot_state_writes_back_every_dirty_accumulator(tmp_path, backend_name):
    batches, _ = _script(pa.int64(), False, seed=7, n_batches=6)
    op, backend = _operator(pa.int64(), False, backend_name, tmp_path / "w", 1000)
    _run(op, batches)
    state = backend.keyed_state("group-agg-1")
    cached = len(op.cache)
    assert cached > 0
    op.snapshot_state(1)
    stored = dict(state.items())
    assert len(stored) == cached  # every key is in the backend, none deleted in insert-only input
    for k, v in stored.items():
        assert k[:2] == key_group(k[2:]).to_bytes(2, "big")
    backend.close()


def test_vectorized_key_groups_are_crc32():
    rnd = random.Random(3)
    keys = [rnd.randbytes(8) for _ in range(2000)] + [b"\x00" * 8, b"\xff" * 8]
    assert with_key_groups(keys) == [key_group(k).to_bytes(2, "big") + k for k in keys]
    mixed = keys[:5] + [b"\x00", b"abcdefghijklmno"]  # mixed lengths, even summing to 8 each
    assert with_key_groups(mixed) == [key_group(k).to_bytes(2, "big") + k for k in mixed]
    assert list(key_groups(keys)) == [key_group(k) for k in keys]
    assert list(key_groups(mixed)) == [key_group(k) for k in mixed]


@pytest.mark.parametrize("value", ["-1", "many"])
def test_bad_cache_size_is_a_config_error(tmp_path, value):
    from streamsql.core.errors import ConfigError

    with pytest.raises(ConfigError, match="state.cache.max-entries"):
        _operator(pa.int64(), False, "hashmap", tmp_path / "w", value)
