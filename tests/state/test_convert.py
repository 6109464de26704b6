"""A snapshot of one state backend restored by the other (streamsql/state/convert.py).

Before, ``'state.backend.type'`` changed between a checkpoint and its restore made the restore fail
("holds no RocksDB snapshot (no CURRENT file)" / "holds no hashmap snapshot") and the job restart
for ever. The conversion must carry every entry, plain and map, and give a join's maps RocksDB's
markers (without one, RocksDB reads a map as absent).
"""

from __future__ import annotations

import pytest

from streamsql.state.convert import restore_snapshot, snapshot_backend
from streamsql.state.factory import create_backend
from streamsql.state.layout import LAYOUT_KEY, map_prefixes, with_key_groups

A, B = map_prefixes(with_key_groups([b"k1", b"k2"]), b"L")
PLAIN = [(b"\x00\x07key", b"value"), (LAYOUT_KEY, b"layout")]


@pytest.mark.parametrize(("written", "restored"), [("hashmap", "rocksdb"), ("rocksdb", "hashmap")])
def test_a_snapshot_of_the_other_backend_is_restored_with_every_entry(tmp_path, written, restored):
    source = create_backend(written)
    source.open(str(tmp_path / "w"))
    join = source.keyed_state("join-3")
    join.write(PLAIN)
    join.write_maps([(A, b"r1", b"v1"), (A, b"r2", b"v2"), (B, b"r1", b"w1")])
    agg = source.keyed_state("group-agg-5")
    agg.write([(b"\x00\x01" + bytes([i]), b"count%d" % i) for i in range(50)])
    source.snapshot(str(tmp_path / "snap"))
    source.close()
    assert snapshot_backend(str(tmp_path / "snap")) == written

    target = create_backend(restored)
    target.open(str(tmp_path / "r"))
    target.keyed_state("stale-1").write([(b"\x00\x00x", b"gone")])  # replaced, as by a restore
    restore_snapshot(target, str(tmp_path / "snap"))
    join = target.keyed_state("join-3")
    assert sorted(sorted(m) for m in join.get_maps([A, B])) == [[(b"r1", b"v1"), (b"r2", b"v2")],
                                                               [(b"r1", b"w1")]]
    assert join.get_many([k for k, _ in PLAIN]) == [v for _, v in PLAIN]
    agg = target.keyed_state("group-agg-5")
    assert agg.get_many([b"\x00\x01" + bytes([i]) for i in range(50)]) == [b"count%d" % i for i in range(50)]
    assert target.operator_ids() == ["group-agg-5", "join-3"]
    target.close()


def test_a_snapshot_of_the_same_backend_is_restored_by_it(tmp_path):
    b = create_backend("hashmap")
    b.open(str(tmp_path / "w"))
    b.keyed_state("op").write([(b"\x00\x00k", b"v")])
    b.snapshot(str(tmp_path / "snap"))
    b.keyed_state("op").write([(b"\x00\x00k", b"later")])
    restore_snapshot(b, str(tmp_path / "snap"))
    assert b.keyed_state("op").get_many([b"\x00\x00k"]) == [b"v"]
    b.close()
