"""Fault injection: make the process die exactly at a named point of the checkpoint protocol.

Set ``STREAMSQL_FAULT=<point>[:<n>]`` to ``os._exit(137)`` (as ``kill -9`` would leave it) the
n-th time (default first) the process reaches ``<point>``. Points:

- ``before_barrier`` — a source is about to inject a barrier;
- ``during_alignment`` — a multi-input task holds an input back;
- ``after_snapshot_before_commit`` — metadata written, transaction not committed;
- ``during_commit`` — between the marker/offsets and the Kafka commit;
- ``after_commit_before_bookkeeping`` — committed, sinks not yet notified, nothing pruned.
"""

from __future__ import annotations

import os
import sys

_counts: dict[str, int] = {}


def fault_point(name: str) -> None:
    """Die here when ``STREAMSQL_FAULT`` names this point (see module docstring)."""
    spec = os.environ.get("STREAMSQL_FAULT")
    if not spec:
        return
    point, _, nth = spec.partition(":")
    if point != name:
        return
    _counts[name] = _counts.get(name, 0) + 1
    if _counts[name] >= int(nth or 1):
        sys.stderr.write(f"[fault injection] dying at {name}\n")
        sys.stderr.flush()
        os._exit(137)
