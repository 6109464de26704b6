"""Two ``streamsql run`` of one job at once: the second is refused, the first runs on untouched.

From the same working folder the checkpoint folder's lock refuses it. From another working folder
(another checkpoint folder, the same ``'pipeline.name'``) nothing did: at parallelism 2 its workers
joined the running job's group, took tasks over and fenced their producers before failing; at
parallelism 1 it fenced the running job's transactional id, which failed that job, and then
refused itself. Now the second run is refused before it touches anything of the first (its
workers in the group, :func:`~streamsql.runtime.worker.other_drivers_workers`; its commit point,
:meth:`~streamsql.checkpoint.identity.JobIdentity.check_before_fencing`); the first is stopped
later and resumed bounded: DuckDB's answer over the input, none lost, none twice.

Before the first run committed anything, its commit point names nothing: the second run (from
another folder) fenced it. The first run's liveness mark (:mod:`streamsql.connectors.kafka.liveness`)
refuses the second one then too; the first, killed with ``kill -9`` afterwards, resumes at once
from its folder (its own dead mark is not waited for).
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time

import pytest
from streamsql.connectors.kafka.liveness import runs_elsewhere, this_run

from streamsql.testing import chaos
from tests.integration.driver_fixtures import StderrLines, job_scripts


def _second_run(script: str, cwd: str, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "streamsql", "run", script], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("parallelism", [2, 1])
def test_a_second_run_of_a_running_job_is_refused(kafka_bootstrap, tmp_path, parallelism):
    first, other = tmp_path / "first", tmp_path / "other"
    first.mkdir()
    other.mkdir()
    a, unbounded, bounded, out = job_scripts(kafka_bootstrap, str(first), parallelism)
    for script in (unbounded, bounded):  # the same script, run from another folder
        shutil.copy(script, other)
    env = {**os.environ, "STREAMSQL_LOG": "INFO"}
    env.pop("STREAMSQL_FAULT", None)
    driver = subprocess.Popen([sys.executable, "-m", "streamsql", "run", unbounded], cwd=first, env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    log = StderrLines(driver, " committed in ")  # a checkpoint of the first run committed
    try:
        assert log.seen.wait(180), log.text()
        same = _second_run(unbounded, str(first), env)
        assert same.returncode == 1
        assert "is in use by job" in same.stderr, same.stderr[-2000:]
        elsewhere = _second_run(os.path.join(other, "job.sql"), str(other), env)
        assert elsewhere.returncode == 1
        if parallelism > 1:
            assert "is running from another 'streamsql run'" in elsewhere.stderr, elsewhere.stderr[-2000:]
            assert f"(of driver {os.uname().nodename}-{driver.pid})" in elsewhere.stderr
            assert " assigned" not in elsewhere.stderr  # it started no worker
        else:
            assert "refused before fencing that id" in elsewhere.stderr, elsewhere.stderr[-2000:]
        # the first run goes on: it commits again, its tasks were never taken from it nor fenced
        committed = sum(" committed in " in line for line in log.lines)
        deadline = time.monotonic() + 60
        while sum(" committed in " in line for line in log.lines) <= committed + 2:
            assert time.monotonic() < deadline and driver.poll() is None, log.text()
            time.sleep(0.2)
        assert not any(" revoked" in line or "fenced" in line for line in log.lines), log.text()
        driver.send_signal(signal.SIGTERM)
        assert driver.wait(120) == 143, log.text()
    finally:
        if driver.poll() is None:
            driver.kill()
    rerun = subprocess.run([sys.executable, "-m", "streamsql", "run", bounded], cwd=first, env=env,
                           capture_output=True, text=True, timeout=600)
    assert rerun.returncode == 0, rerun.stderr[-3000:]
    lost, duplicated = chaos.compare(a, a.records, chaos.read_committed(kafka_bootstrap, out))
    assert (lost, duplicated) == (0, 0)


def test_a_second_run_before_the_first_checkpoint_is_refused_then_a_kill_resumes(kafka_bootstrap, tmp_path):
    first, other = tmp_path / "first", tmp_path / "other"
    first.mkdir()
    other.mkdir()
    a, unbounded, bounded, out = job_scripts(kafka_bootstrap, str(first), 1)
    with open(unbounded) as f:  # the first checkpoint comes late: the second run ends before it
        # (refused 7-8 s after the first run's job started on a machine at load 11-15)
        text = f.read().replace("interval' = '300 ms'", "interval' = '20 s'")
    with open(unbounded, "w") as f:
        f.write(text)
    shutil.copy(unbounded, other)
    job = text.split("SET 'pipeline.name' = '", 1)[1].split("'", 1)[0]
    tid = f"streamsql-{job}-0"
    env = {**os.environ, "STREAMSQL_LOG": "INFO"}
    env.pop("STREAMSQL_FAULT", None)
    driver = subprocess.Popen([sys.executable, "-m", "streamsql", "run", unbounded], cwd=first, env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    log = StderrLines(driver, " committed in ")
    props = {"bootstrap.servers": kafka_bootstrap}
    try:
        # the first run opened its transaction (its mark is a member), or surely has (20 s in)
        started = time.monotonic()
        while (time.monotonic() - started < 20
               and not runs_elsewhere(props, [tid], this_run("/nowhere"), "test", wait_s=0)[tid]):
            assert driver.poll() is None, log.text()
            time.sleep(0.2)
        assert not log.seen.is_set(), "the first run committed a checkpoint already: " + log.text()
        started = time.monotonic()
        elsewhere = _second_run(os.path.join(other, "job.sql"), str(other), env)
        assert elsewhere.returncode == 1, elsewhere.stderr[-2000:]
        assert not log.seen.is_set(), "the first run committed before the second was refused: " + log.text()
        assert f"is running from checkpoint folder '{os.path.realpath(first)}" in elsewhere.stderr, \
            elsewhere.stderr[-2000:]
        assert f"pid {driver.pid})" in elsewhere.stderr and "refused before fencing" in elsewhere.stderr
        assert time.monotonic() - started < 60
        # the first run goes on: it commits its first checkpoint, it was never fenced
        assert log.seen.wait(120) and driver.poll() is None, log.text()
        assert not any("fenced" in line for line in log.lines), log.text()
        driver.send_signal(signal.SIGKILL)  # a crash: its mark stays a member until the session timeout
        driver.wait()
    finally:
        if driver.poll() is None:
            driver.kill()
    started = time.monotonic()
    rerun = subprocess.run([sys.executable, "-m", "streamsql", "run", bounded], cwd=first, env=env,
                           capture_output=True, text=True, timeout=600)
    assert rerun.returncode == 0, rerun.stderr[-3000:]
    assert "resumed from checkpoint #" in rerun.stderr, rerun.stderr[-3000:]
    assert "waiting up to" not in rerun.stderr  # its own dead mark is not waited for
    lost, duplicated = chaos.compare(a, a.records, chaos.read_committed(kafka_bootstrap, out))
    assert (lost, duplicated) == (0, 0)
