"""Per-split watermarks (WatermarkAssignerOperator), at the operator level.

Flink's Kafka source generates a watermark per partition and emits the minimum; an idle
partition (no rows for the idle timeout) is left out until it has rows again. These tests drive
the operator with hand-made batches tagged with split ids, a split status declaring the splits
(as the source driver sends it) and a fake processing-time clock.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

from streamsql.core.elements import MAX_WATERMARK, Batch, RowKind, Watermark
from streamsql.plan.query import compile_query
from streamsql.runtime.evaluator import BatchQuery
from streamsql.runtime.operators.base import OperatorContext, SplitStatus
from streamsql.runtime.operators.watermark_assigner import WatermarkAssignerOperator
from streamsql.runtime.task import Task
from streamsql.state.factory import create_backend

SCHEMA = pa.schema([("id", pa.int32()), ("ts", pa.timestamp("ms"))])
DELAY = 1000  # WATERMARK FOR ts AS ts - INTERVAL '1' SECOND


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def batch(rows, splits=None, kinds=None):
    """rows: (id, ts_ms or None)."""
    t = pa.table({"id": pa.array([r[0] for r in rows], pa.int32()),
                  "ts": pa.array([r[1] for r in rows], pa.int64()).cast(pa.timestamp("ms"))})
    return Batch(t, None if kinds is None else np.asarray(kinds, np.int8),
                 None if splits is None else np.asarray(splits, np.int32))


def assigner(names=None, idle_ms=0, clock=None, state=None, finished=()):
    q = BatchQuery(compile_query([("wm", "ts - INTERVAL 1 SECOND")], None, SCHEMA))
    op = WatermarkAssignerOperator(q, idle_ms, clock or Clock())
    op.open(OperatorContext("watermark-1", state, {}))
    if names is not None:  # what the source driver sends when the source opens
        assert op.process_split_status(SplitStatus(tuple(names), frozenset(finished))) == []
    return op


def wms(out):
    return [e.timestamp for e in out if isinstance(e, Watermark)]


def test_minimum_over_splits_partition_ahead_does_not_make_lagging_rows_late():
    op = assigner(["0", "1"])
    # partition 0 runs ahead; partition 1 lags by far more than the 1 s delay
    out = op.process_batch(batch([(1, 100_000), (2, 5_000), (3, 101_000)], [0, 1, 0]), 0)
    assert wms(out) == [5_000 - DELAY]
    assert out[0].splits is None and out[0].num_rows == 3  # forwarded, split ids dropped
    assert wms(op.process_batch(batch([(4, 102_000)], [0]), 0)) == []  # split 1 still holds it
    assert wms(op.process_batch(batch([(5, 50_000), (6, 40_000)], [1, 1]), 0)) == [50_000 - DELAY]
    assert wms(op.process_batch(batch([(7, 200_000)], [1]), 0)) == [102_000 - DELAY]


def test_declared_split_without_rows_holds_the_watermark_back():
    op = assigner(["0", "1", "2"])
    assert wms(op.process_batch(batch([(1, 10_000), (2, 20_000)], [0, 1]), 0)) == []
    assert wms(op.on_tick()) == []  # no idle timeout: split 2 blocks for ever
    assert wms(op.process_batch(batch([(3, 15_000)], [2]), 0)) == [10_000 - DELAY]


def test_split_discovered_while_running_holds_back_until_rows_or_idle():
    """A Kafka partition found by partition discovery: a new split status with one more name."""
    clock = Clock()
    op = assigner(["0", "1"], idle_ms=5000, clock=clock)
    assert wms(op.process_batch(batch([(1, 10_000), (2, 20_000)], [0, 1]), 0)) == [10_000 - DELAY]
    assert op.process_split_status(SplitStatus(("0", "1", "4"))) == []
    assert op.names == ["0", "1", "4"]
    assert wms(op.process_batch(batch([(3, 30_000), (4, 30_000)], [0, 1]), 0)) == []  # "4" has no row
    clock.now = 4000
    assert wms(op.process_batch(batch([(5, 31_000), (6, 31_000)], [0, 1]), 0)) == []
    clock.now = 5001  # "4" idle from its discovery on, the others had rows since
    assert wms(op.on_tick()) == [31_000 - DELAY]
    # rows of a new split that arrive before its status get a name when the status comes
    op.process_batch(batch([(7, 40_000)], [3]), 0)
    op.process_split_status(SplitStatus(("0", "1", "4", "7")))
    assert op.names == ["0", "1", "4", "7"]


def test_single_split_source_is_the_max_as_before():
    op = assigner()  # no source bound, batches without split ids
    assert wms(op.process_batch(batch([(1, 3000), (2, 9000), (3, 1000)]), 0)) == [8000]
    assert wms(op.process_batch(batch([(4, 5000)]), 0)) == []
    assert wms(op.process_batch(batch([(5, None)]), 0)) == []  # NULL rowtimes are ignored
    assert wms(op.process_batch(batch([(6, 12_000), (7, None)]), 0)) == [11_000]


def test_splits_learnt_from_batches_without_a_source():
    op = assigner()
    assert wms(op.process_batch(batch([(1, 9000)], [0]), 0)) == [8000]
    assert wms(op.process_batch(batch([(2, 20_000)], [1]), 0)) == []  # split 1 appears: min = split 0
    assert wms(op.process_batch(batch([(3, 30_000)], [0]), 0)) == [19_000]


def test_idle_split_is_excluded_until_it_has_rows_again():
    clock = Clock()
    op = assigner(["0", "1"], idle_ms=500, clock=clock)
    assert op.wants_ticks
    assert wms(op.process_batch(batch([(1, 10_000)], [0]), 0)) == []  # split 1 not idle yet
    clock.now = 499
    assert wms(op.on_tick()) == []
    clock.now = 500  # split 1 idle (no row for 500 ms); split 0 had one at t=0 → idle too
    # every split idle: those with rows count (split 0), the never-seen split 1 does not
    assert wms(op.on_tick()) == [9000]
    clock.now = 600
    assert wms(op.process_batch(batch([(2, 12_000)], [0]), 0)) == [11_000]  # only split 0 counts
    # split 1 comes back behind: it counts again but the watermark never goes back
    assert wms(op.process_batch(batch([(3, 4_000)], [1]), 0)) == []
    assert wms(op.process_batch(batch([(4, 30_000)], [0]), 0)) == []  # held by split 1 again
    assert wms(op.process_batch(batch([(5, 20_000)], [1]), 0)) == [19_000]
    clock.now = 1200  # split 1 idle again, split 0's last row at 600: still live
    assert wms(op.process_batch(batch([(6, 31_000)], [0]), 0)) == [30_000]


def test_every_split_idle_counts_only_splits_with_rows():
    clock = Clock()
    op = assigner(["0", "1", "2"], idle_ms=100, clock=clock)
    assert wms(op.process_batch(batch([(1, 50_000), (2, 20_000)], [0, 1]), 0)) == []  # split 2 empty
    clock.now = 1000  # the whole source is quiet: splits 0 and 1 count, empty split 2 does not
    assert wms(op.on_tick()) == [19_000]
    assert assigner(["0"], idle_ms=100, clock=clock).on_tick() == []  # no row anywhere: nothing


def test_idle_tick_releases_the_watermark_without_more_rows():
    clock = Clock()
    op = assigner(["0", "1"], idle_ms=1000, clock=clock)
    clock.now = 900
    assert wms(op.process_batch(batch([(1, 10_000), (2, 11_000)], [0, 0]), 0)) == []
    clock.now = 1000  # split 1 (no row since the start) is idle; split 0 is not
    assert wms(op.on_tick()) == [10_000]


def test_finished_split_no_longer_holds_back():
    op = assigner(["0", "1"], finished={1})
    assert wms(op.process_batch(batch([(1, 10_000)], [0]), 0)) == [9000]
    assert wms(op.process_watermark(Watermark(MAX_WATERMARK))) == [MAX_WATERMARK]
    assert wms(op.process_watermark(Watermark(5))) == []  # upstream watermarks are replaced


def test_vectorized_many_rows_many_splits():
    rnd = np.random.default_rng(7)
    n, k = 10_000, 8
    ids = rnd.integers(0, k, n).astype(np.int32)
    ts = rnd.integers(0, 10**9, n)
    op = assigner([str(i) for i in range(k)])
    out = op.process_batch(batch(list(zip(range(n), ts.tolist())), ids), 0)
    expect = min(ts[ids == i].max() for i in range(k)) - DELAY
    assert wms(out) == [expect]


@pytest.mark.parametrize("backend_name", ["hashmap", "rocksdb"])
def test_per_split_state_survives_restore(tmp_path, backend_name):
    b1 = create_backend(backend_name)
    b1.open(str(tmp_path / "one"))
    first = assigner(["0", "1"], state=b1.keyed_state("watermark-1"))
    first.process_batch(batch([(1, 50_000), (2, 10_000)], [0, 1]), 0)
    first.snapshot_state(1)
    b1.snapshot(str(tmp_path / "snap"))
    b1.close()

    b2 = create_backend(backend_name)
    b2.open(str(tmp_path / "two"))
    # split order differs after the restore (state is by name); split 1 gets no row after it
    second = assigner(["1", "0"], state=b2.keyed_state("watermark-1"))
    b2.restore(str(tmp_path / "snap"))
    out = second.process_batch(batch([(3, 60_000)], [1]), 0)  # id 1 = partition "0" now
    assert wms(out) == [10_000 - DELAY]  # partition "1" restored at 10 s: it does not block
    assert wms(second.process_batch(batch([(4, 70_000)], [0]), 0)) == [60_000 - DELAY]
    b2.close()


def test_calc_keeps_split_ids_aligned_through_a_filter():
    q = BatchQuery(compile_query([("id", '"id"'), ("t2", '"ts"')], '"id" % 2 = 0', SCHEMA))
    b = batch([(i, 1000 * i) for i in range(6)], splits=[5, 4, 3, 2, 1, 0],
              kinds=[RowKind.INSERT, RowKind.DELETE] * 3)
    out = q.run(b)
    assert out.table.column("id").to_pylist() == [0, 2, 4]
    assert out.splits.tolist() == [5, 3, 1] and out.splits.dtype == np.int32
    assert out.kinds.tolist() == [0, 0, 0]
    assert q.run(batch([(1, 1)])).splits is None


def test_task_tick_emits_and_skips_when_finished():
    clock = Clock()
    op = assigner(["0", "1"], idle_ms=100, clock=clock)
    got = []

    class Sink:
        def receive(self, el, idx):
            got.append(el)

    task = Task("watermark-1", op, 1, listener=None, downstream=[(Sink(), 0)])
    task.receive(batch([(1, 5000)], [0]))
    clock.now = 99
    task.tick()
    assert [e.timestamp for e in got if isinstance(e, Watermark)] == []  # split 1 not idle yet
    clock.now = 100
    task.tick()
    assert [e.timestamp for e in got if isinstance(e, Watermark)] == [4000]  # both idle: split 0's
    clock.now = 150
    task.receive(batch([(2, 6000)], [0]))
    assert [e.timestamp for e in got if isinstance(e, Watermark)] == [4000, 5000]
    n = len(got)
    task.finished = True
    clock.now = 10_000
    task.tick()
    assert len(got) == n  # nothing after end of input


def test_eager_watermark_inside_a_batch_as_flinks_assigner():
    # a filesystem-like source (no push-down): Flink's WatermarkAssignerOperator emits after each
    # row that moves the watermark by more than 200 ms, so the row at 3 s, after the one at 10 s,
    # is behind an emitted watermark (compat case match_late_rows, recorded from Flink 2.3)
    q = BatchQuery(compile_query([("wm", "ts - INTERVAL 1 SECOND")], None, SCHEMA))
    op = WatermarkAssignerOperator(q, 0, Clock(), eager_interval_ms=200)
    op.open(OperatorContext("watermark-1", None, {}))
    out = op.process_batch(batch([(1, 1_000), (2, 2_000), (3, 10_000), (4, 3_000), (5, 10_100)]), 0)
    pieces = [[r["id"] for r in e.table.to_pylist()] if isinstance(e, Batch) else e.timestamp for e in out]
    assert pieces == [[1, 2], 1_000, [3], 9_000, [4, 5], 9_100]
    # rows in order need no cut: one batch, one watermark after it
    out = op.process_batch(batch([(6, 20_000), (7, 30_000)]), 0)
    assert [type(e) for e in out] == [Batch, Watermark] and wms(out) == [29_000]
    # the Kafka source (push-down): one watermark per batch, as before
    kafka = assigner()
    out = kafka.process_batch(batch([(1, 1_000), (3, 10_000), (4, 3_000)]), 0)
    assert [type(e) for e in out] == [Batch, Watermark] and wms(out) == [9_000]
