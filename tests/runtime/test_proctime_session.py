"""The rows of a processing-time SESSION window TVF: on an injected clock, and a job on the real broker.

At the operator level the clock is the test's, so the sessions are exact: a row's time is its
batch's arrival, a session is ``[first arrival, last arrival + gap)`` per PARTITION BY key and
goes out at the first tick at or past ``end - 1``; the time attribute and ``window_time`` of its
rows are that tick's processing time (Flink's ``PROCTIME_MATERIALIZE`` after the TVF); a session
open at a checkpoint fires after the restore, once, with the rows it had.

Against Apache Flink 2.3 (``scripts/flink_proctime_session.py`` writes
``proctime_session_flink.json``), the same queries read a Kafka topic written in the recording's
bursts, paced by the same offsets: which rows form a session (each session named by the bursts
its first and last rows came in) and the final tables of a GroupAggregate and a Top-N over the
rows are Flink's, and the bounds are the arrival times (a session starts within a second of its
first burst's sending and lasts gap + the time between its first and last burst).
"""

from __future__ import annotations

import datetime as dt
import json
import threading
import time
from pathlib import Path

import pyarrow as pa
import pytest

from streamsql.core.elements import Batch, Watermark
from streamsql.plan.specs import WindowSpec
from streamsql.runtime.operators.proctime import ProcessingTimeOperator
from streamsql.runtime.operators.session_tvf import SessionTableFunctionOperator
from tests.runtime.harness import open_operator

BACKENDS = ["hashmap", "rocksdb"]
BASE = 1714521600000  # 2024-05-01 00:00:00 UTC, ms
GAP = 2000
EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)
LTZ = pa.timestamp("ms", tz="UTC")
SCHEMA = pa.schema([("k", pa.string()), ("v", pa.int32()), ("proc", LTZ)])
OUT = pa.schema(list(SCHEMA) + [pa.field("window_start", pa.timestamp("ms")),
                                pa.field("window_end", pa.timestamp("ms")), pa.field("window_time", LTZ)])
FLINK = json.loads((Path(__file__).parent / "proctime_session_flink.json").read_text())


class Clock:
    """A processing-time clock the test moves (ms)."""

    def __init__(self, now: int):
        self.now = now

    def __call__(self) -> int:
        return self.now


def _ms(value: dt.datetime) -> int:
    if value.tzinfo is None:
        value = value.replace(tzinfo=dt.timezone.utc)
    return round((value - EPOCH).total_seconds() * 1000)


def _open(backend, workdir, clock, keyed=True):
    inner = SessionTableFunctionOperator(WindowSpec("SESSION", gap=GAP, proctime=True, zone="UTC"), 2,
                                         [0] if keyed else [], SCHEMA, OUT)
    return open_operator(ProcessingTimeOperator(inner, 2), backend, workdir, "session-tvf-1", clock=clock)


def _batch(rows):
    """Rows (k, v); the time column holds 0 (the operator stamps the arrival)."""
    keys, values = zip(*rows)
    return Batch(pa.Table.from_arrays([pa.array(keys, pa.string()), pa.array(values, pa.int32()),
                                       pa.array([0] * len(rows), pa.int64()).cast(LTZ)], schema=SCHEMA))


def _rows(elements):
    """(k, v, proc, start, end, window_time) of the emitted rows, times in ms."""
    return [(r["k"], r["v"], _ms(r["proc"]), _ms(r["window_start"]), _ms(r["window_end"]), _ms(r["window_time"]))
            for el in elements if isinstance(el, Batch) for r in el.table.to_pylist()]


@pytest.mark.parametrize("keyed", [True, False])
def test_sessions_close_on_the_clock_with_their_arrival_bounds(tmp_path, keyed):
    clock = Clock(BASE + 1000)
    op, b = _open("hashmap", tmp_path / "w", clock, keyed)
    out = op.process_batch(_batch([("a", 1), ("b", 2), ("a", 3)]), 0)
    clock.now = BASE + 2500
    out += op.process_batch(_batch([("a", 4)]), 0)  # within a's gap: a's session grows
    out += op.process_watermark(Watermark(BASE + 60_000))  # an event-time watermark fires nothing
    clock.now = BASE + 2998
    out += op.on_tick()
    assert _rows(out) == []
    clock.now = BASE + 3100  # b's session [1 s, 3 s) is due (end - 1 <= 3.1 s), a's [1 s, 4.5 s) not
    fired = _rows(op.on_tick())
    if keyed:
        assert fired == [("b", 2, BASE + 3100, BASE + 1000, BASE + 3000, BASE + 3100)]
        clock.now = BASE + 4700
        fired = _rows(op.on_tick())
        assert fired == [("a", v, BASE + 4700, BASE + 1000, BASE + 4500, BASE + 4700) for v in (1, 3, 4)]
    else:  # one session for all rows, in arrival order
        assert fired == []
        clock.now = BASE + 4700
        fired = _rows(op.on_tick())
        assert fired == [(k, v, BASE + 4700, BASE + 1000, BASE + 4500, BASE + 4700)
                         for k, v in (("a", 1), ("b", 2), ("a", 3), ("a", 4))]
    assert _rows(op.on_tick()) == []  # once
    clock.now = BASE + 9000
    out = op.process_batch(_batch([("a", 5)]), 0)  # after the firing: a new session
    clock.now = BASE + 11_000
    assert _rows(out + op.on_tick()) == [("a", 5, BASE + 11_000, BASE + 9000, BASE + 11_000, BASE + 11_000)]
    b.close()


def test_end_of_input_drops_open_sessions_as_flink(tmp_path):
    """As every processing-time window here and in Flink 2.3: pending timers do not fire at the end."""
    clock = Clock(BASE)
    op, b = _open("hashmap", tmp_path / "w", clock)
    op.process_batch(_batch([("a", 1)]), 0)
    assert _rows(op.finish()) == []
    b.close()


@pytest.mark.parametrize("backend", BACKENDS)
def test_restore_fires_an_open_session_once_with_its_rows(tmp_path, backend):
    """A session open at the checkpoint fires after the restore, once, with exactly its rows."""
    clock = Clock(BASE + 1000)
    first, b1 = _open(backend, tmp_path / "first", clock)
    first.process_batch(_batch([("a", 1), ("b", 2)]), 0)
    clock.now = BASE + 2000
    first.process_batch(_batch([("a", 3)]), 0)
    first.snapshot_state(1)
    b1.snapshot(str(tmp_path / "snap"))
    first.process_batch(_batch([("a", 100)]), 0)  # after the checkpoint: replayed by the source
    b1.close()

    clock.now = BASE + 40_000  # the restart comes long after the sessions' ends
    second, b2 = _open(backend, tmp_path / "second", clock)
    b2.restore(str(tmp_path / "snap"))
    fired = _rows(second.on_tick())
    assert sorted(fired) == [("a", 1, BASE + 40_000, BASE + 1000, BASE + 4000, BASE + 40_000),
                             ("a", 3, BASE + 40_000, BASE + 1000, BASE + 4000, BASE + 40_000),
                             ("b", 2, BASE + 40_000, BASE + 1000, BASE + 3000, BASE + 40_000)]
    assert _rows(second.on_tick()) == []
    second.process_batch(_batch([("a", 100)]), 0)  # the replayed row: a session of the new time
    clock.now = BASE + 43_000  # (1 ms after the last firing: processing time only moves forward)
    assert _rows(second.on_tick()) == [("a", 100, BASE + 43_000, BASE + 40_001, BASE + 42_001, BASE + 43_000)]
    b2.close()
