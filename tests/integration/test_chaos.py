"""Exactly-once under crashes: the crash campaign, short in the default suite, full with ``-m slow``.

The short campaign kills a workload twice, at two fault-injection points: one in the middle of
a checkpoint (:data:`MIDDLE`: its snapshot written, its commit, its bookkeeping) and one at its
start (:data:`START`: a barrier injected, an input held back for alignment), rotated over the
workloads so that every point is reached in one run; the default suite runs it on five workloads
(:data:`DEFAULT_WORKLOADS`), ``-m slow`` on the others. Each kill must happen at
its point (a point not reached in time is a failure, not a ``kill -9`` elsewhere); a workload
killed at ``during_alignment`` reads its two scans as two sources (see
:mod:`streamsql.testing.chaos`). The full campaign (``python -m pytest -m slow
tests/integration/test_chaos.py``) kills every workload at all five points, and has two workloads
more. docs/checkpointing.md describes both, and the long runs.
"""

import pytest

from streamsql.testing import chaos

#: The points in the middle of a checkpoint, and those at its start (chaos.POINTS is both).
MIDDLE = ("after_snapshot_before_commit", "during_commit", "after_commit_before_bookkeeping")
START = ("before_barrier", "during_alignment")
assert set(MIDDLE + START) == set(chaos.POINTS)

WORKLOADS = [("agg", "rocksdb"), ("filter", "hashmap"), ("window", "rocksdb"), ("topn", "hashmap"),
             ("dedup", "rocksdb"), ("udaf", "hashmap"), ("join", "rocksdb"), ("join-append", "hashmap"),
             ("join-inner", "rocksdb"),
             # streamsql.testing.chaos_queries
             ("window-upsert", "rocksdb"), ("two-sinks", "hashmap"), ("multi-topic", "rocksdb"),
             ("over-nontime", "hashmap"), ("session-tvf", "rocksdb"), ("prefix-sinks", "hashmap")]
#: Only in the full campaign.
SLOW_WORKLOADS = [("interval-join", "hashmap"), ("window-topn", "rocksdb"), ("temporal-sort", "hashmap")]


#: The append sink without key fields writes a 3-partition topic, so its batches go to one partition
#: at a time, in turn (the sticky placement of ``ProducerSession.produce_many``), across the kills.
UNKEYED_SPREAD = {"filter": ("--out-partitions", "3")}


def _campaign(bootstrap: str, query: str, backend: str, capsys, points: tuple[str, ...]) -> str:
    # Every point is reached within seconds of a start (the checkpoints are 300 ms apart); the
    # 30 s allowed are for a start on a loaded machine, not waited out.
    rc = chaos.main(["--bootstrap", bootstrap, "--records", "20000", "--kills", str(len(points)),
                     "--points", ",".join(points), "--query", query, "--backend", backend,
                     "--feed-seconds", "6", "--max-kill", "2.5", "--max-run-seconds", "30",
                     *UNKEYED_SPREAD.get(query, ())])
    out = capsys.readouterr().out
    assert rc == 0, out
    assert "lost=0 duplicated=0" in out
    kills = [line.split(": ", 1)[1] for line in out.splitlines() if line.startswith("kill ")]
    assert sorted(kills) == sorted(f"fault {p}" for p in points), out  # each point reached (no kill -9)
    return out


#: The workloads of the short campaign in the default suite: between them every fault point (agg and
#: join: after_snapshot_before_commit and before_barrier; filter: during_commit and during_alignment;
#: window: after_commit_before_bookkeeping; two-sinks: a statement set's two transactional sinks). The
#: others run their short campaign under ``-m slow``, where the full campaign kills every workload at
#: every point as well.
DEFAULT_WORKLOADS = {"agg", "filter", "window", "join", "two-sinks"}


@pytest.mark.parametrize("n,query,backend", [
    pytest.param(n, q, b, marks=() if q in DEFAULT_WORKLOADS else pytest.mark.slow)
    for n, (q, b) in enumerate(WORKLOADS)], ids=[f"{q}-{b}" for q, b in WORKLOADS])
def test_crash_campaign_is_exactly_once(kafka_bootstrap, n, query, backend, capsys):
    """Two kills of the workload, at a point in the middle of a checkpoint and one at its start."""
    _campaign(kafka_bootstrap, query, backend, capsys, (MIDDLE[n % len(MIDDLE)], START[n % len(START)]))


@pytest.mark.slow
@pytest.mark.parametrize("query,backend", WORKLOADS + SLOW_WORKLOADS, ids=[f"{q}-{b}" for q, b in
                                                                           WORKLOADS + SLOW_WORKLOADS])
def test_full_crash_campaign_is_exactly_once(kafka_bootstrap, query, backend, capsys):
    """Five kills of the workload, one at every fault point of the checkpoint protocol."""
    _campaign(kafka_bootstrap, query, backend, capsys, chaos.POINTS)


@pytest.mark.parametrize("query,backend", [("filter", "hashmap")])
def test_worker_crash_campaign_is_exactly_once(kafka_bootstrap, query, backend, capsys):
    """A parallel job on 2 workers: kill -9 of a worker (one restart per fault point), one frozen.

    Kills every 1-2.5 s and restarts within 2 s (the full campaign: 2-6 s and 5 s), so the
    short version spends its time on kills, not on waiting between them.
    """
    rc = chaos.main(["--bootstrap", kafka_bootstrap, "--workers", "2", "--records", "20000", "--kills", "6",
                     "--query", query, "--backend", backend, "--feed-seconds", "10", "--freeze",
                     "--min-kill", "1", "--max-kill", "2.5", "--max-restart-delay", "2",
                     *UNKEYED_SPREAD.get(query, ())])
    out = capsys.readouterr().out
    assert rc == 0, out
    assert "lost=0 duplicated=0" in out
    assert out.count("kill ") >= 6 and "froze worker" in out


def test_temporal_sort_crash_keeps_rowtime_order(kafka_bootstrap, capsys):
    """ORDER BY ts, k DESC without LIMIT: killed in the middle of a checkpoint, at its start and by a
    ``kill -9`` at a random time; the committed output is DuckDB's ORDER BY row for row, in order."""
    points = ("after_snapshot_before_commit", "before_barrier")
    rc = chaos.main(["--bootstrap", kafka_bootstrap, "--records", "20000", "--kills", "3",
                     "--points", ",".join(points), "--query", "temporal-sort", "--backend", "rocksdb",
                     "--feed-seconds", "6", "--min-kill", "1.5", "--max-kill", "3",
                     "--max-run-seconds", "30"])
    out = capsys.readouterr().out
    assert rc == 0, out
    assert "lost=0 duplicated=0 misplaced=0" in out, out
    kills = sorted(line.split(": ", 1)[1] for line in out.splitlines() if line.startswith("kill "))
    assert kills == sorted(["kill -9", *(f"fault {p}" for p in points)]), out
