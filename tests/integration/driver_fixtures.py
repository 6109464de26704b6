"""Drivers of parallel jobs killed with ``kill -9`` in tests, and the workers they leave (or not).

Shared by the driver-death, driver-kills and two-runs tests:

- :func:`job_scripts`: the chaos campaign's query over fed records, as an unbounded script and its
  bounded rerun;
- :class:`StderrLines`: a process's stderr read on a thread, with an event for a marker line;
- :func:`kill_driver`: ``kill -9`` of a driver, then its workers must be gone within
  :data:`GONE_WITHIN_S`; :func:`kill_leftovers` for a ``finally``.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import threading
import time
import uuid

from streamsql.testing import chaos

#: How long a killed driver's workers may outlive it (the kernel's death signal takes
#: milliseconds; the rest is slack for a loaded machine).
GONE_WITHIN_S = 5.0
RECORDS = 20_000


def children(pid: int) -> list[int]:
    """The pids of the processes whose parent is ``pid`` (ps)."""
    out = subprocess.run(["ps", "-o", "pid=", "--ppid", str(pid)], capture_output=True, text=True).stdout
    return [int(p) for p in out.split()]


def alive(pid: int) -> bool:
    """The process exists and is not a zombie (a dead orphan its new parent has not reaped yet)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError):
        return False


class StderrLines:
    """A process's stderr, read on a thread; ``seen`` is set when a line holds ``marker``."""

    def __init__(self, proc: subprocess.Popen, marker: str):
        self.lines: list[str] = []
        self.marker, self.seen = marker, threading.Event()
        self._thread = threading.Thread(target=self._read, args=(proc,), daemon=True)
        self._thread.start()

    def _read(self, proc: subprocess.Popen) -> None:
        for line in proc.stderr:
            self.lines.append(line.rstrip("\n"))
            if self.marker in line:
                self.seen.set()

    def text(self) -> str:
        return "\n".join(self.lines[-60:])


def job_scripts(bootstrap: str, work: str, parallelism: int = 2,
         query: str = "agg") -> tuple[argparse.Namespace, str, str, str]:
    """The campaign's ``query`` over RECORDS fed records: (args, job script, its bounded one, out)."""
    run = uuid.uuid4().hex[:8]
    src, out, job = f"dd_in_{run}", f"dd_out_{run}", f"driver-death-{run}"
    a = argparse.Namespace(query=query, mode="EXACTLY_ONCE", backend="rocksdb", interval="300 ms", set=[],
                           bootstrap=bootstrap)
    chaos.create_topics(bootstrap, [(src, 4, {}), *chaos.output_topics(query, out)])
    records = chaos.make_records(RECORDS)
    chaos.produce(bootstrap, src, records, 0.5, threading.Event(), partitions=4)
    a.records = records
    prefix = f"SET 'parallelism.default' = '{parallelism}';\nSET 'restart-strategy.type' = 'fixed-delay';\n"
    unbounded, bounded = chaos.write_scripts(a, work, job, src, out, prefix)
    return a, unbounded, bounded, out


def kill_driver(driver: subprocess.Popen, workers: list[int]) -> None:
    """``kill -9`` of ``driver``; its ``workers`` (pids) must all be gone within :data:`GONE_WITHIN_S`.

    Raises:
        AssertionError: naming the workers that outlived their driver.
    """
    driver.send_signal(signal.SIGKILL)
    driver.wait()
    deadline = time.monotonic() + GONE_WITHIN_S
    while any(alive(w) for w in workers) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(alive(w) for w in workers), f"orphaned workers still run: {workers}"


def kill_leftovers(workers: list[int]) -> None:
    """``kill -9`` of each of ``workers`` still alive: never leave one behind, whatever failed."""
    for w in workers:
        if alive(w):
            os.kill(w, signal.SIGKILL)
