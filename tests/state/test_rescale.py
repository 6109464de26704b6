"""Rescale at the state level: a snapshot split 1 → 2 → 3 tasks and merged back to 1 holds the
same entries, each task only its key groups (a new run's assignment: the bit-reversed ranges;
streamsql.state.layout.task_of_key_groups)."""

import pytest

from streamsql.state.factory import create_backend
from streamsql.state.layout import (
    KG_ASSIGNMENT_BIT_REVERSED,
    KG_ASSIGNMENT_RANGES,
    MAX_PARALLELISM,
    OPERATOR_KG,
    SPLIT_KEY_PREFIX,
    WATERMARK_KEY,
    encode_keys,
    with_key_groups,
)
from streamsql.state.rescale import RescaleError, key_group_range, rescale_snapshots, task_of_key_group

BACKENDS = ["rocksdb", "hashmap"]


def _watermark(ms):
    return b"\xc1wm" + ms.to_bytes(8, "big", signed=True)


def _snapshot(backend, tmp_path, name, content):
    b = create_backend(backend)
    b.open(str(tmp_path / f"w-{name}"))
    for op, entries in content.items():
        b.keyed_state(op).write(sorted(entries.items()))
    b.snapshot(str(tmp_path / name))
    b.close()
    return str(tmp_path / name)


def _content(backend, tmp_path, path):
    b = create_backend(backend)
    b.open(str(tmp_path / f"r-{abs(hash(path))}"))
    b.restore(path)
    out = {op: dict(b.keyed_state(op).items()) for op in b.operator_ids()}
    b.close()
    return out


def _keyed(n):
    import pyarrow as pa

    keys = with_key_groups(encode_keys([pa.array(range(n), pa.int64())]))
    return {k: b"v" + k for k in keys}


def _kgs(entries):
    return {int.from_bytes(k[:2], "big") for k in entries if k[:2] != b"\xff\xff"}


@pytest.mark.parametrize("assignment", [KG_ASSIGNMENT_RANGES, KG_ASSIGNMENT_BIT_REVERSED])
def test_key_group_ranges_match_the_assignment(assignment):
    for parallelism in (1, 2, 3, 4, 7, 128):
        owned = [list(key_group_range(p, parallelism, assignment)) for p in range(parallelism)]
        assert sorted(sum(owned, [])) == list(range(MAX_PARALLELISM))
        for p, kgs in enumerate(owned):
            assert all(task_of_key_group(kg, parallelism, assignment) == p for kg in kgs)
    # Flink's ranges are contiguous: task p of P holds kg * P // 128 == p
    assert key_group_range(1, 2, KG_ASSIGNMENT_RANGES) == list(range(64, 128))


@pytest.mark.parametrize("backend", BACKENDS)
def test_split_one_two_three_and_merge_back(backend, tmp_path):
    original = {"agg": _keyed(3000), "join": {k + b"L": v for k, v in _keyed(500).items()},
                "window": {**_keyed(200), WATERMARK_KEY: _watermark(1_000)}}
    one = _snapshot(backend, tmp_path, "one", original)
    assert _kgs(original["agg"]) == set(range(MAX_PARALLELISM))  # every key group is exercised

    two = [str(tmp_path / f"two-{p}") for p in range(2)]
    rescale_snapshots(backend, [one], two, str(tmp_path / "scratch1"))
    three = [str(tmp_path / f"three-{p}") for p in range(3)]
    rescale_snapshots(backend, two, three, str(tmp_path / "scratch2"))
    for p, path in enumerate(three):
        part = _content(backend, tmp_path, path)
        for op, entries in part.items():
            assert _kgs(entries) <= set(key_group_range(p, 3)), (op, p)
            assert all(original[op][k] == v for k, v in entries.items())
        assert part["window"][WATERMARK_KEY] == _watermark(1_000)  # operator-wide: to every task

    merged = str(tmp_path / "merged")
    rescale_snapshots(backend, three, [merged], str(tmp_path / "scratch3"))
    assert _content(backend, tmp_path, merged) == original
    assert not (tmp_path / "scratch3").exists()


@pytest.mark.parametrize("backend", BACKENDS)
def test_merge_keeps_the_smallest_watermark_the_largest_split_maximum_and_refuses_other_conflicts(
        backend, tmp_path):
    a = _snapshot(backend, tmp_path, "a", {"w": {WATERMARK_KEY: _watermark(-5)}})
    b = _snapshot(backend, tmp_path, "b", {"w": {WATERMARK_KEY: _watermark(7)}})
    out = str(tmp_path / "out")
    rescale_snapshots(backend, [b, a], [out], str(tmp_path / "s"))
    assert _content(backend, tmp_path, out) == {"w": {WATERMARK_KEY: _watermark(-5)}}

    # a split's maximum: the task reading the split moved its copy on, the others kept an older one
    split = SPLIT_KEY_PREFIX + b"0"
    c = _snapshot(backend, tmp_path, "c", {"w": {split: (1_000).to_bytes(8, "big", signed=True)}})
    d = _snapshot(backend, tmp_path, "d", {"w": {split: (-7).to_bytes(8, "big", signed=True)}})
    rescale_snapshots(backend, [d, c], [str(tmp_path / "out2")], str(tmp_path / "s2"))
    assert _content(backend, tmp_path, str(tmp_path / "out2")) == {
        "w": {split: (1_000).to_bytes(8, "big", signed=True)}}

    other = OPERATOR_KG + b"\x00Z"
    e = _snapshot(backend, tmp_path, "e", {"w": {other: b"\x00" * 8}})
    f = _snapshot(backend, tmp_path, "f", {"w": {other: b"\x01" * 8}})
    with pytest.raises(RescaleError, match="operator 'w'"):
        rescale_snapshots(backend, [e, f], [str(tmp_path / "out3")], str(tmp_path / "s3"))
