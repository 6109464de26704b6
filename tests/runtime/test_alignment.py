"""Barrier alignment and watermark merging: the unit classes, then a two-input Task."""

from __future__ import annotations

import pyarrow as pa
import pytest

from streamsql.core.elements import MAX_WATERMARK, Barrier, Batch, EndOfInput, Watermark
from streamsql.runtime.alignment import BarrierAligner, WatermarkMerger
from streamsql.runtime.operators.base import Operator, OperatorContext
from streamsql.runtime.operators.union import UnionOperator
from streamsql.runtime.task import Task

# -- BarrierAligner ----------------------------------------------------------------------------


def test_aligner_blocks_inputs_that_delivered_the_barrier_until_all_have():
    a = BarrierAligner(3, exactly_once=True)
    assert not any(a.is_blocked(i) for i in range(3))
    assert a.on_barrier(1, 0) is False
    assert [a.is_blocked(i) for i in range(3)] == [True, False, False]
    assert a.on_barrier(1, 2) is False
    assert [a.is_blocked(i) for i in range(3)] == [True, False, True]
    assert a.on_barrier(1, 1) is True  # aligned
    assert not any(a.is_blocked(i) for i in range(3))


def test_aligner_at_least_once_never_blocks_but_still_aligns():
    a = BarrierAligner(2, exactly_once=False)
    assert a.on_barrier(4, 1) is False
    assert not a.is_blocked(0) and not a.is_blocked(1)
    assert a.on_barrier(4, 0) is True


def test_aligner_single_input_aligns_at_once():
    a = BarrierAligner(1)
    assert a.on_barrier(1, 0) is True
    assert not a.is_blocked(0)
    assert a.on_barrier(2, 0) is True


def test_aligner_successive_checkpoints_start_from_scratch():
    a = BarrierAligner(2)
    assert not a.on_barrier(1, 0)
    assert a.on_barrier(1, 1)
    # checkpoint 2: input 1 first this time; input 0 must not count as arrived from checkpoint 1
    assert not a.on_barrier(2, 1)
    assert a.is_blocked(1) and not a.is_blocked(0)
    assert a.on_barrier(2, 0)


def test_aligner_finished_input_completes_a_pending_alignment():
    a = BarrierAligner(2)
    assert a.on_end(1) is False  # nothing pending
    assert a.on_barrier(1, 0) is True  # the only live input delivered it
    assert a.on_barrier(2, 0) is True


def test_aligner_input_ending_during_alignment_completes_it():
    a = BarrierAligner(3)
    assert not a.on_barrier(5, 0)
    assert not a.on_barrier(5, 1)
    assert a.on_end(2) is True
    assert not a.is_blocked(0) and not a.is_blocked(1)


# -- WatermarkMerger ---------------------------------------------------------------------------


def test_merger_waits_for_every_input_then_takes_the_minimum():
    m = WatermarkMerger(2)
    assert m.update(0, 100) is None  # input 1 has no watermark yet
    assert m.update(1, 50) == 50
    assert m.update(1, 80) == 80
    assert m.update(1, 150) == 100  # now input 0 is the minimum
    assert m.update(0, 120) == 120
    assert m.update(0, 200) == 150


def test_merger_leaves_an_idle_input_out_until_it_is_active_again():
    """As Flink's StatusWatermarkValve: an idle input does not hold the others back; when every
    input is idle the largest watermark is flushed; a watermark makes an input active again."""
    m = WatermarkMerger(3)
    assert m.update(0, 100) is None
    assert m.set_idle(1) is None  # input 2 sent nothing yet
    assert m.update(2, 150) == 100
    assert m.update(0, 300) == 150
    assert m.set_idle(2) == 300 and not m.all_idle()
    assert m.set_idle(0) is None and m.all_idle()  # all idle: the largest, 300, is out already
    assert m.update(1, 200) is None and not m.all_idle()  # active again, behind: no step back
    assert m.update(1, 400) == 400
    m = WatermarkMerger(2)
    m.update(0, 10)
    assert m.set_idle(1) == 10  # a source that never had rows: idle from the start
    assert m.end(0) is None  # the other finished: the idle one alone gives no +inf
    assert m.end(1) == MAX_WATERMARK


def test_merger_input_active_again_behind_holds_nobody_back_until_it_catches_up():
    """As Flink's StatusWatermarkValve: a channel active again after idling is *unaligned* until
    its watermark reaches the last one emitted; meanwhile the others' minimum goes on (its rows
    behind that are late), and it counts again once it caught up."""
    m = WatermarkMerger(2)
    assert m.update(0, 100) is None
    assert m.set_idle(1) == 100
    assert m.update(0, 200) == 200
    assert m.update(1, 50) is None  # active again, behind
    assert m.update(0, 300) == 300  # input 1, unaligned, does not hold input 0 back
    assert m.update(1, 250) is None  # still behind 300
    assert m.update(1, 350) is None  # caught up: counted again, min(300, 350) is out already
    assert m.update(0, 400) == 350  # now it holds input 0 back
    m = WatermarkMerger(2)
    m.update(0, 100)
    m.set_idle(1)
    m.activate(1)  # rows on the idle input (nothing emitted on it yet): active again, unaligned
    assert m.update(0, 200) == 200


def test_merger_is_monotone_per_input_and_overall():
    m = WatermarkMerger(2)
    m.update(0, 100)
    assert m.update(1, 100) == 100
    assert m.update(0, 90) is None  # a late, smaller watermark on one input is ignored
    assert m.update(1, 130) is None  # min is still 100 (input 0 did not go back to 90)
    assert m.update(0, 110) == 110
    assert m.current == 110


def test_merger_equal_watermark_is_not_an_advance():
    m = WatermarkMerger(1)
    assert m.update(0, 10) == 10
    assert m.update(0, 10) is None


def test_merger_finished_input_counts_as_infinity():
    m = WatermarkMerger(2)
    m.update(0, 100)
    assert m.end(1) == 100  # input 1 finished without watermarks: input 0 decides
    assert m.update(0, 300) == 300
    assert m.end(0) == MAX_WATERMARK


# -- a two-input Task ---------------------------------------------------------------------------

SCHEMA = pa.schema([("v", pa.int64())])


def batch(*values: int) -> Batch:
    return Batch(pa.table({"v": pa.array(values, pa.int64())}))


class Recorder(Operator):
    """Downstream operator that records what reaches it (batches as value lists)."""

    def __init__(self):
        self.seen: list = []
        self.snapshots: list[int] = []

    def process_batch(self, b, input_index):
        self.seen.append(("batch", b.table.column("v").to_pylist()))
        return []

    def process_watermark(self, wm):
        self.seen.append(("wm", wm.timestamp))
        return []

    def snapshot_state(self, checkpoint_id):
        self.snapshots.append(checkpoint_id)
        self.seen.append(("snapshot", checkpoint_id))


class SpyUnion(UnionOperator):
    def __init__(self):
        super().__init__(SCHEMA)
        self.processed: list = []
        self.snapshots: list[int] = []

    def process_batch(self, b, input_index):
        self.processed.append((input_index, b.table.column("v").to_pylist()))
        return super().process_batch(b, input_index)

    def snapshot_state(self, checkpoint_id):
        self.snapshots.append(checkpoint_id)


class Listener:
    def __init__(self):
        self.acks: list[tuple[int, str]] = []

    def acknowledge(self, checkpoint_id, task_id):
        self.acks.append((checkpoint_id, task_id))


def make_tasks(exactly_once: bool, *also_to):
    """A union (2 inputs) feeding a recorder, and ``also_to`` (each at input 0)."""
    listener = Listener()
    union = SpyUnion()
    rec = Recorder()
    t_rec = Task("rec-2", rec, 1, listener, exactly_once)
    downstream = [(t_rec, 0)] + [(extra, 0) for extra in also_to]
    t_union = Task("union-1", union, 2, listener, exactly_once, downstream=downstream)
    for op, tid in ((union, "union-1"), (rec, "rec-2")):
        op.open(OperatorContext(tid, None, {}))
    return t_union, union, rec, listener


def test_task_exactly_once_holds_an_aligned_input_until_the_barrier_is_forwarded():
    task, union, rec, listener = make_tasks(exactly_once=True)
    task.receive(batch(1), 0)
    task.receive(Barrier(7, 0), 0)
    task.receive(batch(2), 0)  # after barrier 7 on input 0: belongs to epoch 8, must wait
    assert union.processed == [(0, [1])]
    assert rec.seen == [("batch", [1])]
    task.receive(batch(3), 1)  # input 1 has not delivered barrier 7: processed now
    assert union.processed == [(0, [1]), (1, [3])]
    assert rec.seen == [("batch", [1]), ("batch", [3])]
    assert listener.acks == [] and union.snapshots == []
    task.receive(Barrier(7, 0), 1)  # aligned: snapshot, ack, forward, then the held batch
    assert union.snapshots == [7]
    assert union.processed == [(0, [1]), (1, [3]), (0, [2])]
    assert rec.seen == [("batch", [1]), ("batch", [3]), ("snapshot", 7), ("batch", [2])]
    assert listener.acks == [(7, "union-1"), (7, "rec-2")]


def test_task_at_least_once_processes_post_barrier_records_immediately():
    task, union, rec, listener = make_tasks(exactly_once=False)
    task.receive(Barrier(3, 0), 0)
    task.receive(batch(2), 0)  # not held under AT_LEAST_ONCE
    assert union.processed == [(0, [2])]
    assert rec.seen == [("batch", [2])]
    task.receive(batch(3), 1)
    assert listener.acks == []  # the barrier is still not forwarded: input 1 has not sent it
    task.receive(Barrier(3, 0), 1)
    assert rec.seen == [("batch", [2]), ("batch", [3]), ("snapshot", 3)]
    assert listener.acks == [(3, "union-1"), (3, "rec-2")]


def test_task_acknowledges_each_checkpoint_once():
    task, union, rec, listener = make_tasks(exactly_once=True)
    for n in (1, 2, 3):
        task.receive(batch(n * 10), 1)
        task.receive(Barrier(n, 0), 1)
        task.receive(batch(n * 10 + 1), 1)  # held
        task.receive(Barrier(n, 0), 0)
    assert listener.acks == [(n, t) for n in (1, 2, 3) for t in ("union-1", "rec-2")]
    assert union.snapshots == [1, 2, 3] and rec.snapshots == [1, 2, 3]
    assert [v for k, v in rec.seen if k == "batch"] == [[10], [11], [20], [21], [30], [31]]


def test_task_held_elements_keep_their_order_and_include_the_next_barrier():
    task, union, rec, listener = make_tasks(exactly_once=True)
    task.receive(Barrier(1, 0), 0)
    task.receive(batch(1), 0)
    task.receive(Watermark(50), 0)
    task.receive(batch(2), 0)
    task.receive(Barrier(2, 0), 0)  # barrier 2 on input 0 while 1 is still aligning
    task.receive(batch(3), 0)
    assert rec.seen == [] and listener.acks == []
    task.receive(Barrier(1, 0), 1)
    # released in order; barrier 2 then blocks input 0 again, so [3] waits for barrier 2 on input 1
    assert [v for k, v in rec.seen if k == "batch"] == [[1], [2]]
    assert listener.acks == [(1, "union-1"), (1, "rec-2")]
    task.receive(Watermark(70), 1)
    assert ("wm", 50) in rec.seen
    task.receive(Barrier(2, 0), 1)
    assert [v for k, v in rec.seen if k == "batch"] == [[1], [2], [3]]
    assert listener.acks == [(n, t) for n in (1, 2) for t in ("union-1", "rec-2")]


def test_task_end_of_input_completes_alignment_and_finishes():
    task, union, rec, listener = make_tasks(exactly_once=True)
    task.receive(Barrier(1, 0), 0)
    task.receive(batch(9), 0)  # held
    task.receive(EndOfInput(), 1)  # the other input ends: alignment completes
    assert listener.acks == [(1, "union-1"), (1, "rec-2")]
    assert [v for k, v in rec.seen if k == "batch"] == [[9]]
    assert not task.finished
    task.receive(EndOfInput(), 0)
    assert task.finished
    assert rec.seen[-1] == ("wm", MAX_WATERMARK)


def test_task_watermark_is_minimum_of_inputs():
    task, union, rec, listener = make_tasks(exactly_once=True)
    task.receive(Watermark(100), 0)
    assert [e for e in rec.seen if e[0] == "wm"] == []
    task.receive(Watermark(40), 1)
    task.receive(Watermark(60), 1)
    task.receive(Watermark(200), 1)
    assert [e for e in rec.seen if e[0] == "wm"] == [("wm", 40), ("wm", 60), ("wm", 100)]


@pytest.mark.parametrize("exactly_once", [True, False])
def test_union_forwards_rows_unchanged(exactly_once):
    task, union, rec, listener = make_tasks(exactly_once)
    task.receive(batch(1, 2), 0)
    task.receive(batch(3), 1)
    assert [v for k, v in rec.seen if k == "batch"] == [[1, 2], [3]]


class Collector:
    """A stand-in downstream task that records the elements pushed to it."""

    def __init__(self):
        self.elements: list = []

    def receive(self, element, input_index=0):
        self.elements.append(element)


def test_task_forwards_the_barrier_it_received():
    out = Collector()
    task, union, rec, listener = make_tasks(True, out)
    b = Barrier(4, 1_700_000_000_000, then_stop=True)
    task.receive(b, 1)
    task.receive(Barrier(4, 1_700_000_000_000, then_stop=True), 0)
    assert [e for e in out.elements if isinstance(e, Barrier)] == [b]


def test_task_forwards_the_pending_barrier_when_an_input_ends_during_alignment():
    out = Collector()
    task, union, rec, listener = make_tasks(True, out)
    b = Barrier(4, 1_700_000_000_000, then_stop=True)
    task.receive(b, 0)
    task.receive(EndOfInput(), 1)  # completes the alignment of checkpoint 4
    assert [e for e in out.elements if isinstance(e, Barrier)] == [b]
