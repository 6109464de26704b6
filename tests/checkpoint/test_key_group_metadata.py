"""A parallel task's checkpoints record its run's key-group assignment, and the record decides.

The run's assignment used to live only in the job folder's ``_key_groups``: deleted or rewritten, an
unfinished bit-reversed run resumed with the ranges (a wrong answer, no error; the real jobs are in
tests/integration/test_parallel_crash_resume.py and test_key_group_upgrade.py). Here the pieces: what
a task's ``_metadata`` holds, how :func:`run_assignment` reads it back, the restore's refusal of a
checkpoint of another assignment, and that a StreamSQL knowing only the ranges (735568b, whose
restore compares every signature's ``layout`` with its own ``1``) refuses such a checkpoint.
"""

from __future__ import annotations

import json

import pytest

from streamsql import StreamEnvironment
from streamsql.checkpoint.coordinator import CheckpointCoordinator, LocalCommitter
from streamsql.checkpoint.operators import (
    ASSIGNMENT_KEY,
    StateMappingError,
    check_assignment,
    claim_state,
    mark_layouts,
    recorded_assignment,
)
from streamsql.checkpoint.storage import CheckpointStorage
from streamsql.core.errors import ConfigError
from streamsql.plan.planner import Planner, assign_ids
from streamsql.plan.state_signature import recorded_signatures, state_signatures
from streamsql.runtime.builder import TaskSlot
from streamsql.runtime.parallel import ASSIGNMENT_FILE, run_assignment
from streamsql.runtime.savepoint import seed_storage
from streamsql.sql.parser import parse_statement
from streamsql.state.layout import KG_ASSIGNMENT_BIT_REVERSED, KG_ASSIGNMENT_RANGES

SLOTS = [TaskSlot("job", 0, 0, 1), TaskSlot("job", 1, 0, 2), TaskSlot("job", 1, 1, 2)]


@pytest.fixture(scope="module")
def signatures():
    env = StreamEnvironment()
    env.execute_sql("CREATE TABLE src (k INT, v BIGINT) WITH ('connector' = 'datagen')")
    env.execute_sql("CREATE TABLE out_t (k INT, c BIGINT, PRIMARY KEY (k) NOT ENFORCED) "
                    "WITH ('connector' = 'print')")
    root = Planner(env.catalog, env.config).plan_insert(parse_statement(
        "INSERT INTO out_t SELECT k, SUM(v) FROM src GROUP BY k"))
    assign_ids([root])
    yield state_signatures([root])
    env.close()


def _checkpoint(storage: CheckpointStorage, cid: int, operators: dict, key_groups: int | None) -> dict:
    """Complete checkpoint ``cid`` through a coordinator (as a task's is written); its ``_metadata``."""
    coord = CheckpointCoordinator(storage, LocalCommitter(storage), 0, task_ids=["t"], first_id=cid,
                                  operators=operators, key_groups=key_groups)
    n = coord.trigger()
    coord.acknowledge(n, "t")
    coord.maybe_complete(wait=True)
    return storage.read_metadata(n)


def test_a_tasks_metadata_records_the_assignment_a_single_process_ones_nothing(signatures, tmp_path):
    task = _checkpoint(SLOTS[1].storage(str(tmp_path), {}), 3, signatures, KG_ASSIGNMENT_BIT_REVERSED)
    assert task[ASSIGNMENT_KEY] == KG_ASSIGNMENT_BIT_REVERSED == recorded_assignment(task)
    assert {s["layout"] for s in task["operators"].values()} == {"1 (key groups: assignment 2)"}
    # read back as today's signatures
    assert recorded_signatures(task["operators"]) == json.loads(json.dumps(signatures))
    ranges = _checkpoint(SLOTS[2].storage(str(tmp_path), {}), 3, signatures, KG_ASSIGNMENT_RANGES)
    assert ranges[ASSIGNMENT_KEY] == KG_ASSIGNMENT_RANGES  # recorded, layouts as every version reads them
    assert {s["layout"] for s in ranges["operators"].values()} == {1}
    single = _checkpoint(CheckpointStorage(str(tmp_path), "single", {}), 1, signatures, None)
    assert ASSIGNMENT_KEY not in single and recorded_assignment(single) is None
    assert single["operators"] == json.loads(json.dumps(signatures))


def test_the_checkpoints_decide_whatever_key_groups_says(signatures, tmp_path):
    files = CheckpointStorage(str(tmp_path), "job", {})
    assert run_assignment(files, False, SLOTS) == KG_ASSIGNMENT_BIT_REVERSED
    _checkpoint(SLOTS[0].storage(str(tmp_path), {}), 4, signatures, KG_ASSIGNMENT_BIT_REVERSED)
    for tampered in (None, b"1", b"x"):
        if tampered is None:
            files.delete_file(ASSIGNMENT_FILE)
        else:
            files.write_file(ASSIGNMENT_FILE, tampered)
        assert run_assignment(files, True, SLOTS) == KG_ASSIGNMENT_BIT_REVERSED
        assert files.read_file(ASSIGNMENT_FILE) == b"2"  # written again
    # a savepoint's seed counts too (a task that has committed nothing of its own yet)
    seed = seed_storage(SLOTS[1], str(tmp_path), {})
    _checkpoint(seed, 9, signatures, KG_ASSIGNMENT_RANGES)
    with pytest.raises(ConfigError, match="checkpoints of different key-group assignments"):
        run_assignment(files, True, SLOTS)


def test_without_a_recording_checkpoint_the_file_decides(signatures, tmp_path):
    files = CheckpointStorage(str(tmp_path), "job", {})
    _checkpoint(SLOTS[0].storage(str(tmp_path), {}), 4, signatures, None)  # written before the record
    files.write_file(ASSIGNMENT_FILE, b"2")
    assert run_assignment(files, True, SLOTS) == KG_ASSIGNMENT_BIT_REVERSED
    files.delete_file(ASSIGNMENT_FILE)
    assert run_assignment(files, True, SLOTS) == KG_ASSIGNMENT_RANGES


def test_a_recorded_assignment_this_streamsql_does_not_know_is_refused(signatures, tmp_path):
    files = CheckpointStorage(str(tmp_path), "job", {})
    _checkpoint(SLOTS[0].storage(str(tmp_path), {}), 4, signatures, 7)
    with pytest.raises(ConfigError, match="assignment 7, which this StreamSQL does not know"):
        run_assignment(files, True, SLOTS)


def test_a_checkpoint_of_another_assignment_is_refused_at_restore(signatures, tmp_path):
    meta = _checkpoint(SLOTS[0].storage(str(tmp_path), {}), 4, signatures, KG_ASSIGNMENT_BIT_REVERSED)
    check_assignment(meta, KG_ASSIGNMENT_BIT_REVERSED, "/cp/job/stage0-task0/chk-4", "job")
    with pytest.raises(StateMappingError) as refused:
        check_assignment(meta, KG_ASSIGNMENT_RANGES, "/cp/job/stage0-task0/chk-4", "job")
    text = str(refused.value)
    assert "by assignment 2" in text and "routes them by assignment 1" in text
    assert "stage0-task0/chk-4" in text
    check_assignment({"operators": signatures}, KG_ASSIGNMENT_RANGES, "x", "job")  # records none: as before


def test_a_streamsql_that_knows_only_the_ranges_refuses_a_bit_reversed_checkpoint(signatures):
    """735568b restores ``claim_state(meta["operators"], its own signatures)``, its own with ``layout`` 1
    (today's ``state_signatures``): the marked layouts make it refuse, naming the layout."""
    recorded = json.loads(json.dumps(mark_layouts(signatures, KG_ASSIGNMENT_BIT_REVERSED)))
    with pytest.raises(StateMappingError, match=r"state layout version 1 \(key groups: assignment 2\) -> 1"):
        claim_state(recorded, signatures, location="/cp/job/stage1-task0/chk-4", job="job", ignore=False)
    # the ranges are what it routes by: a run of them stays readable to it
    assert claim_state(json.loads(json.dumps(mark_layouts(signatures, KG_ASSIGNMENT_RANGES))), signatures,
                       location="x", job="job", ignore=False) == []


def test_the_marked_signatures_are_built_once_per_run(signatures, tmp_path, monkeypatch):
    """Every checkpoint of a bit-reversed run records the same marked signatures, built once when the
    coordinator is made (not at each checkpoint: they never change within a run)."""
    from streamsql.checkpoint import coordinator as coordinator_module

    calls = []
    monkeypatch.setattr(coordinator_module, "mark_layouts",
                        lambda ops, kg: calls.append(kg) or mark_layouts(ops, kg))
    storage = SLOTS[1].storage(str(tmp_path), {})
    coord = CheckpointCoordinator(storage, LocalCommitter(storage), 0, task_ids=["t"], first_id=1,
                                  operators=signatures, key_groups=KG_ASSIGNMENT_BIT_REVERSED)
    for _ in range(3):
        n = coord.trigger()
        coord.acknowledge(n, "t")
        coord.maybe_complete(wait=True)
        assert {s["layout"] for s in storage.read_metadata(n)["operators"].values()} == \
            {"1 (key groups: assignment 2)"}
    assert calls == [KG_ASSIGNMENT_BIT_REVERSED]
