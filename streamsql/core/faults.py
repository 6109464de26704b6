"""Fault injection: make the process die exactly at a named point of the checkpoint protocol.

Set ``STREAMSQL_FAULT=<point>[:<n>]`` to ``os._exit(137)`` (as ``kill -9`` would leave it) the
n-th time (default first) the process reaches ``<point>``. Points:

- ``before_barrier`` — a source is about to inject a barrier;
- ``during_alignment`` — a multi-input task holds an input back;
- ``after_snapshot_before_commit`` — metadata written, transaction not committed;
- ``during_commit`` — between the marker/offsets and the Kafka commit;
- ``after_commit_before_bookkeeping`` — committed, sinks not yet notified, nothing pruned.

A point of the filesystem sink (:mod:`streamsql.connectors.part_files`):

- ``during_file_commit`` — a completed checkpoint's first pending part file is renamed, the
  others not yet.

Points of the pipelined hot path (docs/checkpointing.md, "The pipelined hot path"):

- ``while_holding`` — a transactional Kafka sink holds a batch of epoch n+1 while checkpoint n
  commits (on the sink thread);
- ``during_decode`` — a Kafka source's decode thread decodes a batch while batches wait in both
  its queues (fetched, and decoded for the job thread).

Points of a parallel job's tasks and workers (docs/parallelism.md):

- ``before_exchange_commit`` — an exchange writer pre-committed its records, the task's
  transaction is not committed;
- ``during_revocation`` — a worker is cancelling a task the group took from it;
- ``after_fencing_during_restore`` — a task fenced its producer, its restore has not begun.

``STREAMSQL_FAULT_RAISE=<point>[:<n>]`` raises an :class:`~streamsql.core.errors.ExecutionError` there
instead (once, the n-th time): an operator failure inside a running job, which the restart
strategy (``'restart-strategy.type' = 'fixed-delay'``) recovers from.

``STREAMSQL_FAULT_PAUSE=<point>[:<n>]`` stops the thread there for good (the n-th time), after
saying so on stderr: a process caught in the middle of the protocol, for a test to kill it or its
parent at that moment (a worker's driver killed mid-checkpoint: :mod:`streamsql.core.lifeline`).
"""

from __future__ import annotations

import os
import sys
import time

_counts: dict[str, int] = {}


def _reached(variable: str, name: str) -> bool:
    spec = os.environ.get(variable)
    if not spec:
        return False
    point, _, nth = spec.partition(":")
    if point != name:
        return False
    key = f"{variable}:{name}"
    _counts[key] = _counts.get(key, 0) + 1
    n = int(nth or 1)
    if variable in ("STREAMSQL_FAULT_RAISE", "STREAMSQL_FAULT_PAUSE"):
        return _counts[key] == n  # once: the restarted job passes the point again
    return _counts[key] >= n


def fault_point(name: str) -> None:
    """Die (or raise) here when ``STREAMSQL_FAULT`` (``STREAMSQL_FAULT_RAISE``) names this point."""
    if _reached("STREAMSQL_FAULT", name):
        sys.stderr.write(f"[fault injection] dying at {name}\n")
        sys.stderr.flush()
        os._exit(137)
    if _reached("STREAMSQL_FAULT_RAISE", name):
        from streamsql.core.errors import ExecutionError

        msg = f"injected failure at {name}"
        raise ExecutionError(msg)
    if _reached("STREAMSQL_FAULT_PAUSE", name):
        sys.stderr.write(f"[fault injection] pausing at {name}\n")
        sys.stderr.flush()
        while True:  # until the process is killed
            time.sleep(60)


def reset_counts() -> None:
    """Forget how often each point was reached (tests run several jobs in one process)."""
    _counts.clear()
