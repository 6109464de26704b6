"""Map state (``get_maps`` / ``get_map_values`` / ``write_maps``) on both backends, and its wrappers."""

from __future__ import annotations

import pytest

from streamsql.runtime.job_state import DeferringKeyedState
from streamsql.state.layout import map_prefixes, split_map_key, with_key_groups
from streamsql.state.rescale import rescale_snapshots
from streamsql.state.ttl import StateTtl, TtlKeyedState

A, B, C = map_prefixes(with_key_groups([b"\x00", b"\x00\x01", b"k"]), b"L")  # b"\x00" starts b"\x00\x01"


def test_prefixes_are_prefix_free_and_split_back():
    assert not B.startswith(A) and not A.startswith(B)
    assert split_map_key(A + b"row") == (A, b"row")
    assert split_map_key(A) == (A, b"")
    assert split_map_key(b"\x00\x01plain") is None
    assert split_map_key(A[:4] + b"L\xff\xff\xff\xff") is None  # a length past the key's end


def test_put_read_delete(backend):
    s = backend.keyed_state("op")
    assert s.get_maps([A, B]) == [[], []]
    s.write_maps([(A, b"r1", b"v1"), (A, b"r2", b"v2"), (B, b"r1", b"w1")])
    maps = [sorted(m) for m in s.get_maps([A, B, C])]
    assert maps == [[(b"r1", b"v1"), (b"r2", b"v2")], [(b"r1", b"w1")], []]
    assert s.get_map_values([(A, b"r2"), (B, b"r2"), (C, b"r1")]) == [b"v2", None, None]
    s.write_maps([(A, b"r1", b"v1'")], [(A, b"r2"), (B, b"r1")])
    assert s.get_maps([A, B]) == [[(b"r1", b"v1'")], []]
    assert s.get_maps([B]) == [[]]  # twice: a map found empty stays empty


def test_map_entries_are_listed_by_whole_key(backend):
    s = backend.keyed_state("op")
    s.write([(b"\xff\xffplain", b"p")])
    s.write_maps([(A, b"r1", b"v1")])
    entries = {k: v for k, v in s.items() if split_map_key(k) is None or split_map_key(k)[1]}
    assert entries == {A + b"r1": b"v1", b"\xff\xffplain": b"p"}


def test_snapshot_restore_keeps_maps(backend_factory, backend_name, tmp_path):
    first = backend_factory(backend_name)
    s = first.keyed_state("op")
    s.write_maps([(A, b"r1", b"v1"), (B, b"r2", b"v2")])
    first.snapshot(str(tmp_path / "snap"))
    s.write_maps([(A, b"r3", b"v3")], [(B, b"r2")])
    first.restore(str(tmp_path / "snap"))
    assert s.get_maps([A, B]) == [[(b"r1", b"v1")], [(b"r2", b"v2")]]
    second = backend_factory(backend_name)
    second.restore(str(tmp_path / "snap"))
    t = second.keyed_state("op")
    assert t.get_map_values([(B, b"r2")]) == [b"v2"]
    assert t.get_maps([A]) == [[(b"r1", b"v1")]]


def test_rescale_keeps_maps(backend_factory, backend_name, tmp_path):
    b = backend_factory(backend_name)
    keys = [bytes([i]) for i in range(40)]
    prefixes = map_prefixes(with_key_groups(keys), b"R")
    b.keyed_state("op").write_maps([(p, b"row", p) for p in prefixes])
    b.snapshot(str(tmp_path / "snap"))
    targets = [str(tmp_path / f"t{i}") for i in range(2)]
    rescale_snapshots(backend_name, [str(tmp_path / "snap")], targets, str(tmp_path / "work"))
    found = []
    for t in targets:
        r = backend_factory(backend_name)
        r.restore(t)
        found += [m for m in r.keyed_state("op").get_maps(prefixes) if m]
    assert sorted(found) == sorted([[(b"row", p)] for p in prefixes])


def test_deferred_map_writes_are_seen_and_applied_after(backend):
    d = DeferringKeyedState(backend.keyed_state("op"))
    d.write_maps([(A, b"r1", b"v1"), (A, b"r2", b"v2")])
    d.defer()
    d.write_maps([(A, b"r3", b"v3")], [(A, b"r1")])
    assert sorted(d.get_maps([A])[0]) == [(b"r2", b"v2"), (b"r3", b"v3")]
    assert d.get_map_values([(A, b"r1"), (A, b"r3")]) == [None, b"v3"]
    assert sorted(backend.keyed_state("op").get_maps([A])[0]) == [(b"r1", b"v1"), (b"r2", b"v2")]
    assert sorted(k for k, _ in d.items() if split_map_key(k)[1]) == [A + b"r2", A + b"r3"]
    d.apply()
    assert sorted(backend.keyed_state("op").get_maps([A])[0]) == [(b"r2", b"v2"), (b"r3", b"v3")]


def test_map_entries_expire_on_their_own(backend):
    now = [1000]
    s = TtlKeyedState(backend.keyed_state("op"), StateTtl(100, lambda: now[0]))
    s.write_maps([(A, b"r1", b"v1")])
    now[0] = 1050
    s.write_maps([(A, b"r2", b"v2")])
    assert sorted(s.get_maps([A])[0]) == [(b"r1", b"v1"), (b"r2", b"v2")]
    now[0] = 1100  # r1 written at 1000 is gone at 1000 + 100
    assert s.get_maps([A]) == [[(b"r2", b"v2")]]
    assert s.get_map_values([(A, b"r1"), (A, b"r2")]) == [None, b"v2"]
    assert backend.keyed_state("op").get_map_values([(A, b"r1")]) == [None]  # deleted when met


@pytest.mark.parametrize("n", [1, 3])
def test_hashmap_len_counts_map_entries(backend_factory, n):
    b = backend_factory("hashmap")
    s = b.keyed_state("op")
    s.write_maps([(A, bytes([i + 1]), b"v") for i in range(n)])
    assert len(s) == n and b.operator_ids() == ["op"]
