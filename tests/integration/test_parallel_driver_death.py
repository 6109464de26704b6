"""``streamsql run``'s workers die with it: a driver killed with ``kill -9`` leaves no orphan.

Before :mod:`streamsql.core.lifeline`, the workers of a killed driver ran on and finished the job by
themselves, and a driver started again added a second set of workers on the same topics and
checkpoint folder. Here the driver of an unbounded job at parallelism 2 (a GROUP BY over a UNION
ALL: two stages and an exchange) is killed mid-run, and mid-checkpoint (a worker held inside its
Kafka commit, ``STREAMSQL_FAULT_PAUSE=during_commit``); every worker must be gone within
:data:`~tests.integration.driver_fixtures.GONE_WITHIN_S` (its ``kill_driver``),
and the bounded job run again must resume the killed run's last checkpoint and give DuckDB's
answer over the input (read_committed): 0 lost, 0 duplicated.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections import Counter

import pytest

from streamsql.testing import chaos
from tests.integration.driver_fixtures import StderrLines, children, job_scripts, kill_driver, kill_leftovers


def _committed_by_both_stages(lines: list[str]) -> bool:
    """Three commits logged per stage (``job <name>-<stage>: checkpoint #n committed``): each of its
    two tasks has committed one (a chk-* folder alone may be a checkpoint still being written)."""
    per_stage = Counter(line.split("job ", 1)[1].split(":", 1)[0] for line in list(lines)
                        if " committed in " in line and "job " in line)
    return len(per_stage) >= 2 and min(per_stage.values()) >= 3


@pytest.mark.parametrize("when", ["mid-run", "mid-checkpoint"])
def test_workers_die_with_a_killed_driver_and_the_restart_resumes(kafka_bootstrap, tmp_path, when):
    """kill -9 of the driver: its workers gone within seconds; the rerun resumes, exactly once."""
    work = str(tmp_path)
    a, unbounded, bounded, out = job_scripts(kafka_bootstrap, work)
    env = {**os.environ, "STREAMSQL_LOG": "INFO"}
    env.pop("STREAMSQL_FAULT", None)
    marker = " assigned"  # a worker runs a task
    if when == "mid-checkpoint":  # a checkpoint committed before, the next one held in its commit
        env["STREAMSQL_FAULT_PAUSE"] = "during_commit:3"
        marker = "[fault injection] pausing at during_commit"
    driver = subprocess.Popen([sys.executable, "-m", "streamsql", "run", unbounded], cwd=work, env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    log = StderrLines(driver, marker)
    workers: list[int] = []
    try:
        assert log.seen.wait(180), log.text()
        if when == "mid-run":  # checkpoints committed by both stages' tasks (the run has something to resume)
            deadline = time.monotonic() + 60
            while not _committed_by_both_stages(log.lines) and time.monotonic() < deadline:
                time.sleep(0.1)
        workers = children(driver.pid)
        assert len(workers) == 2 and driver.poll() is None, log.text()
        kill_driver(driver, workers)
    finally:
        kill_leftovers(workers)
    rerun = subprocess.run([sys.executable, "-m", "streamsql", "run", bounded], cwd=work,
                           env={k: v for k, v in env.items() if not k.startswith("STREAMSQL_FAULT")},
                           capture_output=True, text=True, timeout=600)
    assert rerun.returncode == 0, rerun.stderr[-3000:]
    assert "resumed from checkpoint #" in rerun.stderr, rerun.stderr[-3000:]
    lost, duplicated = chaos.compare(a, a.records, chaos.read_committed(kafka_bootstrap, out))
    assert (lost, duplicated) == (0, 0)
