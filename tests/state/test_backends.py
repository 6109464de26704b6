"""The StateBackend contract, checked against both backends."""

from __future__ import annotations

import os
import random
import time

import pytest

from streamsql.core.errors import ExecutionError
from streamsql.state.base import StateBackend
from streamsql.state.exceptions import SnapshotError, StateClosedError, StateError
from tests.state.fixtures import encode_key

k = encode_key


def dump(backend: StateBackend, *operators: str) -> dict[str, list[tuple[bytes, bytes]]]:
    return {op: list(backend.keyed_state(op).items()) for op in operators}


# -- reads and writes ------------------------------------------------------------------------


def test_get_many_in_order_with_none_for_absent(backend):
    ks = backend.keyed_state("agg")
    ks.write([(k(b"a"), b"1"), (k(b"b"), b"2"), (k(b"e"), b"")])
    got = ks.get_many([k(b"b"), k(b"x"), k(b"a"), k(b"b"), k(b"e")])
    assert got == [b"2", None, b"1", b"2", b""]
    assert ks.get_many([]) == []


def test_write_puts_overwrites_and_deletes(backend):
    ks = backend.keyed_state("agg")
    ks.write([(k(b"a"), b"1"), (k(b"b"), b"2"), (k(b"c"), b"3")])
    ks.write([(k(b"a"), b"10"), (k(b"d"), b"4")], [k(b"b"), k(b"missing")])
    assert ks.get_many([k(b"a"), k(b"b"), k(b"c"), k(b"d")]) == [b"10", None, b"3", b"4"]
    ks.write([], [k(b"c")])
    ks.write([])
    assert ks.get_many([k(b"c")]) == [None]


def test_key_in_puts_and_deletes_of_one_batch_ends_deleted(backend):
    ks = backend.keyed_state("agg")
    ks.write([(k(b"a"), b"1")], [k(b"a")])
    assert ks.get_many([k(b"a")]) == [None]


def test_items_in_key_group_order_without_prefix(backend):
    ks = backend.keyed_state("agg")
    keys = [b"key%d" % i for i in range(500)]
    random.Random(7).shuffle(keys)
    ks.write([(k(key), key.upper()) for key in keys])
    items = list(ks.items())
    assert items == sorted((k(key), key.upper()) for key in keys)
    groups = [int.from_bytes(key[:2], "big") for key, _ in items]
    assert groups == sorted(groups)


def test_operators_are_isolated(backend):
    ops = ["op1", "op10", "op", "op1x", "o"]
    for i, op in enumerate(ops):
        backend.keyed_state(op).write([(k(b"shared"), op.encode()), (k(b"only-%d" % i), b"x")])
    for i, op in enumerate(ops):
        ks = backend.keyed_state(op)
        assert ks.get_many([k(b"shared")]) == [op.encode()]
        assert list(ks.items()) == sorted([(k(b"shared"), op.encode()), (k(b"only-%d" % i), b"x")])
    backend.keyed_state("op1").clear()
    assert list(backend.keyed_state("op1").items()) == []
    for op in ops[1:]:
        assert len(list(backend.keyed_state(op).items())) == 2
    backend.keyed_state("op1").write([(k(b"back"), b"1")])
    assert list(backend.keyed_state("op1").items()) == [(k(b"back"), b"1")]


def test_prefix_operator_id_keys_edge_bytes(backend):
    # op1's key may start with bytes that, unseparated, would look like op10's range
    backend.keyed_state("op1").write([(b"0" + b"\xff" * 3, b"a"), (b"\x00\x00", b"b")])
    backend.keyed_state("op10").write([(b"\x00\x01", b"c")])
    assert list(backend.keyed_state("op1").items()) == [(b"\x00\x00", b"b"), (b"0\xff\xff\xff", b"a")]
    assert list(backend.keyed_state("op10").items()) == [(b"\x00\x01", b"c")]


def test_keyed_state_is_cached_and_validated(backend):
    assert backend.keyed_state("agg") is backend.keyed_state("agg")
    for bad in ["", "a\x00b"]:
        with pytest.raises(StateError):
            backend.keyed_state(bad)


def test_open_starts_empty_in_a_used_workdir(backend_factory, backend_name, tmp_path):
    workdir = str(tmp_path / "w")
    first = backend_factory(backend_name, workdir)
    first.keyed_state("agg").write([(k(b"a"), b"1")])
    first.snapshot(str(tmp_path / "snap"))
    first.close()
    second = backend_factory(backend_name, workdir)
    assert list(second.keyed_state("agg").items()) == []


def test_closed_backend_raises_typed_error(backend):
    ks = backend.keyed_state("agg")
    backend.close()
    with pytest.raises(StateClosedError):
        ks.get_many([k(b"a")])
    with pytest.raises(StateClosedError):
        ks.write([(k(b"a"), b"1")])
    with pytest.raises(StateClosedError):
        list(ks.items())
    assert issubclass(StateClosedError, ExecutionError)


# -- snapshot and restore -----------------------------------------------------------------------


def test_snapshot_then_writes_then_restore_gives_snapshot_state(backend, tmp_path):
    a, b = backend.keyed_state("a"), backend.keyed_state("b")
    a.write([(k(b"x%d" % i), b"v%d" % i) for i in range(100)])
    b.write([(k(b"y"), b"1")])
    expected = dump(backend, "a", "b")
    size = backend.snapshot(str(tmp_path / "chk-1"))
    assert size > 0

    a.write([(k(b"x1"), b"changed"), (k(b"new"), b"n")], [k(b"x2")])
    b.clear()
    backend.keyed_state("c").write([(k(b"z"), b"late")])

    backend.restore(str(tmp_path / "chk-1"))
    # handles taken before the restore still work and see the restored state
    assert dump(backend, "a", "b") == expected
    assert a.get_many([k(b"x1"), k(b"x2"), k(b"new")]) == [b"v1", b"v2", None]
    assert list(backend.keyed_state("c").items()) == []


def test_snapshot_restore_chain_leaves_older_snapshots_intact(backend, tmp_path):
    ks = backend.keyed_state("agg")
    ks.write([(k(b"a"), b"1")])
    backend.snapshot(str(tmp_path / "chk-1"))
    state1 = dump(backend, "agg")

    backend.restore(str(tmp_path / "chk-1"))
    ks.write([(k(b"b"), b"2")], [k(b"a")])
    backend.snapshot(str(tmp_path / "chk-2"))
    state2 = dump(backend, "agg")
    for i in range(5):  # more flushes on top of files shared with chk-1 and chk-2
        ks.write([(k(b"n%d" % j), b"%d" % i) for j in range(200)])
        backend.snapshot(str(tmp_path / f"chk-extra-{i}"))

    backend.restore(str(tmp_path / "chk-2"))
    assert dump(backend, "agg") == state2
    ks.write([(k(b"c"), b"3")])
    backend.restore(str(tmp_path / "chk-1"))
    assert dump(backend, "agg") == state1
    backend.restore(str(tmp_path / "chk-2"))
    assert dump(backend, "agg") == state2
    assert backend.snapshot(str(tmp_path / "chk-3")) > 0


def test_restore_into_a_fresh_backend(backend_factory, backend_name, tmp_path):
    first = backend_factory(backend_name)
    first.keyed_state("agg").write([(k(b"a%d" % i), b"%d" % i) for i in range(1000)])
    first.keyed_state("join").write([(k(b"a%d" % i), b"j%d" % i) for i in range(10)])
    first.snapshot(str(tmp_path / "snap"))
    expected = dump(first, "agg", "join")
    first.close()
    second = backend_factory(backend_name)
    second.restore(str(tmp_path / "snap"))
    assert dump(second, "agg", "join") == expected


def test_empty_snapshot(backend, tmp_path):
    assert backend.snapshot(str(tmp_path / "s")) > 0
    backend.keyed_state("agg").write([(k(b"a"), b"1")])
    backend.restore(str(tmp_path / "s"))
    assert list(backend.keyed_state("agg").items()) == []


def test_snapshot_size_grows_with_state(backend, tmp_path):
    small = backend.snapshot(str(tmp_path / "s1"))
    backend.keyed_state("agg").write([(k(b"%d" % i), os.urandom(100)) for i in range(2000)])
    big = backend.snapshot(str(tmp_path / "s2"))
    assert big > small + 100_000


def test_snapshot_into_existing_directory_fails(backend, tmp_path):
    (tmp_path / "exists").mkdir()
    with pytest.raises(SnapshotError, match="already exists"):
        backend.snapshot(str(tmp_path / "exists"))


def test_snapshot_creates_missing_parents(backend, tmp_path):
    assert backend.snapshot(str(tmp_path / "a" / "b" / "chk-1")) > 0


def test_restore_from_missing_or_foreign_directory_fails(backend, tmp_path):
    with pytest.raises(SnapshotError):
        backend.restore(str(tmp_path / "nope"))
    (tmp_path / "empty").mkdir()
    with pytest.raises(SnapshotError):
        backend.restore(str(tmp_path / "empty"))


# -- volume --------------------------------------------------------------------------------------


def _roundtrip(backend: StateBackend, n: int, batch: int = 10_000) -> None:
    ks = backend.keyed_state("volume")
    keys = [k(b"key-%d" % i) for i in range(n)]
    for start in range(0, n, batch):
        ks.write([(key, key[-8:]) for key in keys[start : start + batch]])
    for start in range(0, n, batch):
        chunk = keys[start : start + batch]
        assert ks.get_many(chunk) == [key[-8:] for key in chunk]
    assert sum(1 for _ in ks.items()) == n


def test_100k_keys_in_batches(backend):
    _roundtrip(backend, 100_000)


@pytest.mark.slow
def test_1m_keys_in_batches_with_snapshot(backend, tmp_path):
    t0 = time.perf_counter()
    _roundtrip(backend, 1_000_000)
    assert backend.snapshot(str(tmp_path / "big")) > 8_000_000
    backend.keyed_state("volume").clear()
    backend.restore(str(tmp_path / "big"))
    assert backend.keyed_state("volume").get_many([k(b"key-999999")]) == [b"y-999999"]
    assert time.perf_counter() - t0 < 60
