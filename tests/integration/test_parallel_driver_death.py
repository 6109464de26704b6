"""``streamsql run``'s workers die with it: a driver killed with ``kill -9`` leaves no orphan.

Before :mod:`streamsql.core.lifeline`, the workers of a killed driver ran on and finished the job by
themselves, and a driver started again added a second set of workers on the same topics and
checkpoint folder. Here the driver of an unbounded job at parallelism 2 (a GROUP BY over a UNION
ALL: two stages and an exchange) is killed mid-run, and mid-checkpoint (a worker held inside its
Kafka commit, ``STREAMSQL_FAULT_PAUSE=during_commit``); every worker must be gone within
:data:`GONE_WITHIN_S`, and the bounded job run again must resume the killed run's last checkpoint
and give DuckDB's answer over the input (read_committed): 0 lost, 0 duplicated.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections import Counter

import pytest

from streamsql.testing import chaos

#: How long a killed driver's workers may outlive it (the kernel's death signal takes
#: milliseconds; the rest is slack for a loaded machine).
GONE_WITHIN_S = 5.0
RECORDS = 20_000


def _children(pid: int) -> list[int]:
    out = subprocess.run(["ps", "-o", "pid=", "--ppid", str(pid)], capture_output=True, text=True).stdout
    return [int(p) for p in out.split()]


def _alive(pid: int) -> bool:
    """The process exists and is not a zombie (a dead orphan its new parent has not reaped yet)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError):
        return False


def _committed_by_both_stages(lines: list[str]) -> bool:
    """Three commits logged per stage (``job <name>-<stage>: checkpoint #n committed``): each of its
    two tasks has committed one (a chk-* folder alone may be a checkpoint still being written)."""
    per_stage = Counter(line.split("job ", 1)[1].split(":", 1)[0] for line in list(lines)
                        if " committed in " in line and "job " in line)
    return len(per_stage) >= 2 and min(per_stage.values()) >= 3


class _Lines:
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


def _job(bootstrap: str, work: str, parallelism: int = 2,
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


@pytest.mark.parametrize("when", ["mid-run", "mid-checkpoint"])
def test_workers_die_with_a_killed_driver_and_the_restart_resumes(kafka_bootstrap, tmp_path, when):
    """kill -9 of the driver: its workers gone within seconds; the rerun resumes, exactly once."""
    work = str(tmp_path)
    a, unbounded, bounded, out = _job(kafka_bootstrap, work)
    env = {**os.environ, "STREAMSQL_LOG": "INFO"}
    env.pop("STREAMSQL_FAULT", None)
    marker = " assigned"  # a worker runs a task
    if when == "mid-checkpoint":  # a checkpoint committed before, the next one held in its commit
        env["STREAMSQL_FAULT_PAUSE"] = "during_commit:3"
        marker = "[fault injection] pausing at during_commit"
    driver = subprocess.Popen([sys.executable, "-m", "streamsql", "run", unbounded], cwd=work, env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    log = _Lines(driver, marker)
    workers: list[int] = []
    try:
        assert log.seen.wait(180), log.text()
        if when == "mid-run":  # checkpoints committed by both stages' tasks (the run has something to resume)
            deadline = time.monotonic() + 60
            while not _committed_by_both_stages(log.lines) and time.monotonic() < deadline:
                time.sleep(0.1)
        workers = _children(driver.pid)
        assert len(workers) == 2 and driver.poll() is None, log.text()
        driver.send_signal(signal.SIGKILL)
        driver.wait()
        deadline = time.monotonic() + GONE_WITHIN_S
        while any(_alive(w) for w in workers) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not any(_alive(w) for w in workers), f"orphaned workers still run: {workers}"
    finally:
        for w in workers:  # never leave one behind, whatever failed
            if _alive(w):
                os.kill(w, signal.SIGKILL)
    rerun = subprocess.run([sys.executable, "-m", "streamsql", "run", bounded], cwd=work,
                           env={k: v for k, v in env.items() if not k.startswith("STREAMSQL_FAULT")},
                           capture_output=True, text=True, timeout=600)
    assert rerun.returncode == 0, rerun.stderr[-3000:]
    assert "resumed from checkpoint #" in rerun.stderr, rerun.stderr[-3000:]
    lost, duplicated = chaos.compare(a, a.records, chaos.read_committed(kafka_bootstrap, out))
    assert (lost, duplicated) == (0, 0)
