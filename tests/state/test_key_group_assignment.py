"""Key groups spread over a stage's tasks: small key sets reach every task, an unfinished run keeps
the assignment it started with, and the exchange routes a key to the task a rescale gave its state."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

from streamsql.checkpoint.storage import CheckpointStorage
from streamsql.core.elements import Batch
from streamsql.core.errors import ConfigError
from streamsql.runtime.exchange import owner_tasks
from streamsql.runtime.parallel import ASSIGNMENT_FILE, run_assignment
from streamsql.state.layout import (
    KG_ASSIGNMENT,
    KG_ASSIGNMENT_BIT_REVERSED,
    KG_ASSIGNMENT_RANGES,
    encode_keys,
    with_key_groups,
)
from streamsql.state.rescale import key_group_range, rescale_snapshots
from tests.state.test_rescale import _content, _snapshot

SMALL_SETS = {"INT 0..15": pa.array(range(16), pa.int32()), "BIGINT 0..15": pa.array(range(16), pa.int64()),
              "'k0'..'k15'": pa.array([f"k{i}" for i in range(16)]),
              "'user_0'..'user_15'": pa.array([f"user_{i}" for i in range(16)])}


def _counts(keys: pa.Array, tasks: int, assignment: int) -> list[int]:
    owners = owner_tasks(Batch(pa.table({"k": keys})), [0], tasks, assignment)
    return np.bincount(owners, minlength=tasks).tolist()


@pytest.mark.parametrize("name", SMALL_SETS)
@pytest.mark.parametrize("tasks", [2, 4])
def test_sixteen_similar_keys_reach_every_task(name, tasks):
    """The ranges put all 16 on half the tasks (the CRC's high bits are the same for them); the
    bit-reversed assignment gives every task its share within 25 % (8/8 or 10/6 at 2 tasks, 4 each
    or 5/5/3/3 at 4)."""
    old = _counts(SMALL_SETS[name], tasks, KG_ASSIGNMENT_RANGES)
    assert old.count(0) == tasks // 2, old  # the skew this assignment removes
    new = _counts(SMALL_SETS[name], tasks, KG_ASSIGNMENT_BIT_REVERSED)
    share = 16 / tasks
    assert 0.75 * share <= min(new) and max(new) <= 1.25 * share, new


def test_every_task_owns_as_many_key_groups_as_before():
    for tasks in (1, 2, 3, 4, 7, 128):
        for assignment in (KG_ASSIGNMENT_RANGES, KG_ASSIGNMENT_BIT_REVERSED):
            owned = [key_group_range(p, tasks, assignment) for p in range(tasks)]
            assert sorted(sum(owned, [])) == list(range(128))
            assert {len(o) for o in owned} <= {128 // tasks, -(-128 // tasks)}


def test_a_new_run_records_todays_assignment_an_unfinished_one_keeps_its_own(tmp_path):
    files = CheckpointStorage(str(tmp_path), "job", {})
    assert run_assignment(files, resuming=False) == KG_ASSIGNMENT == KG_ASSIGNMENT_BIT_REVERSED
    assert files.read_file(ASSIGNMENT_FILE) == str(KG_ASSIGNMENT).encode()
    assert run_assignment(files, resuming=True) == KG_ASSIGNMENT
    files.delete_file(ASSIGNMENT_FILE)  # a run started before the file: Flink's ranges
    assert run_assignment(files, resuming=True) == KG_ASSIGNMENT_RANGES
    # "²" is a digit to str.isdigit but not to int(): a corrupt file, refused as the others
    for unknown in (b"7", b"x", "²".encode()):
        files.write_file(ASSIGNMENT_FILE, unknown)
        refused = f"assignment {unknown.decode()}, which this StreamSQL does not know"
        with pytest.raises(ConfigError, match=refused):
            run_assignment(files, resuming=True)


@pytest.mark.parametrize("backend", ["hashmap", "rocksdb"])
def test_the_exchange_routes_a_key_to_the_task_a_rescale_gave_its_state(backend, tmp_path):
    """A savepoint restored at 3 tasks: each key's rows reach the task holding its state."""
    keys = pa.array(list(range(500)) + [10**9 + i for i in range(16)], pa.int64())
    state = {k: b"v" for k in with_key_groups(encode_keys([keys]))}
    one = _snapshot(backend, tmp_path, "one", {"agg": state})
    three = [str(tmp_path / f"three-{p}") for p in range(3)]
    rescale_snapshots(backend, [one], three, str(tmp_path / "scratch"))
    held = {}
    for p, path in enumerate(three):
        for key in _content(backend, tmp_path, path)["agg"]:
            held[key] = p
    owners = owner_tasks(Batch(pa.table({"k": keys})), [0], 3)
    for key, owner in zip(with_key_groups(encode_keys([keys])), owners):
        assert held[key] == owner
