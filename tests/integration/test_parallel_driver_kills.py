"""``kill -9`` of a parallel job's driver inside its checkpoints, again and again (slow).

A p=2 window aggregate and a p=2 regular join (the crash campaign's ``window`` and ``join``
queries) run under ``streamsql run``; each run is held inside a checkpoint by
``STREAMSQL_FAULT_PAUSE`` (after its snapshot, before the commit; inside the Kafka commit) and its
driver killed with ``kill -9`` there, four times from the same folder. Every restart must come
up (the dead run's workers' members and its liveness marks are its own: not waited for), no
worker may outlive its driver, and the bounded run at the end must resume and give DuckDB's
answer over the input: 0 lost, 0 duplicated.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from streamsql.testing import chaos
from tests.integration.driver_fixtures import StderrLines, children, job_scripts, kill_driver, kill_leftovers

#: ``STREAMSQL_FAULT_PAUSE`` of each run: the point and which time it is reached
KILLS = ("after_snapshot_before_commit:2", "during_commit:3", "during_commit:2",
         "after_snapshot_before_commit:3")


@pytest.mark.slow
@pytest.mark.parametrize("query", ["window", "join"])
def test_driver_killed_inside_checkpoints_resumes_exactly_once(kafka_bootstrap, tmp_path, query):
    work = str(tmp_path)
    a, unbounded, bounded, out = job_scripts(kafka_bootstrap, work, 2, query)
    base = {k: v for k, v in os.environ.items() if not k.startswith("STREAMSQL_FAULT")}
    for pause in KILLS:
        point = pause.split(":")[0]
        driver = subprocess.Popen([sys.executable, "-m", "streamsql", "run", unbounded], cwd=work,
                                  env={**base, "STREAMSQL_LOG": "INFO", "STREAMSQL_FAULT_PAUSE": pause},
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        log = StderrLines(driver, f"[fault injection] pausing at {point}")
        workers: list[int] = []
        try:
            assert log.seen.wait(240), log.text()
            workers = children(driver.pid)
            kill_driver(driver, workers)
        finally:
            if driver.poll() is None:
                driver.kill()
            kill_leftovers(workers)
    rerun = subprocess.run([sys.executable, "-m", "streamsql", "run", bounded], cwd=work, env=base,
                           capture_output=True, text=True, timeout=600)
    assert rerun.returncode == 0, rerun.stderr[-3000:]
    assert "resumed from checkpoint #" in rerun.stderr, rerun.stderr[-3000:]
    lost, duplicated = chaos.compare(a, a.records, chaos.read_committed(kafka_bootstrap, out))
    assert (lost, duplicated) == (0, 0)
