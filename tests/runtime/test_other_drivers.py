"""Which members of a job's worker group another ``streamsql run`` of this host still runs.

A second run of a running job looks at the other driver's members of the group
(:func:`streamsql.runtime.worker.other_drivers_workers`): a worker process of a live driver here
stays (refused at once: waiting for it to leave only delayed the refusal by 10 s), the members
of a dead driver here died with it, those of a live driver whose worker process ended are leaving
(its run is finishing), another host's may be either. The processes here are real: this test's
own children stand for a driver's workers (``--worker-id`` on their command line).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from types import SimpleNamespace

import pytest

from streamsql.core.lifeline import children_running
from streamsql.runtime.worker import DRIVER_CLIENT_PREFIX, _member_states

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")

SLEEPER = "import time; time.sleep(60)"


def _child(worker_id: str) -> subprocess.Popen:
    proc = subprocess.Popen([sys.executable, "-c", SLEEPER, "--worker-id", worker_id])
    deadline = time.monotonic() + 30
    while worker_id not in (children_running(os.getpid(), "--worker-id", {worker_id}) or set()):
        assert time.monotonic() < deadline and proc.poll() is None, "the child never ran"
        time.sleep(0.05)
    return proc


def _member(driver: str, worker_id: str) -> SimpleNamespace:
    return SimpleNamespace(client_id=DRIVER_CLIENT_PREFIX + driver, group_instance_id=worker_id,
                           member_id=f"m-{worker_id}")


def test_children_running_names_live_children_by_their_flag_only():
    proc = _child("job-w0")
    try:
        assert children_running(os.getpid(), "--worker-id", {"job-w0", "job-w1"}) == {"job-w0"}
        assert children_running(os.getpid(), "--driver-pid", {"job-w0"}) == set()
        assert children_running(proc.pid, "--worker-id", {"job-w0"}) == set()  # not its own child
    finally:
        proc.kill()
    deadline = time.monotonic() + 30
    while children_running(os.getpid(), "--worker-id", {"job-w0"}):  # a zombie does not count
        assert time.monotonic() < deadline, "a killed child still counted"
        time.sleep(0.05)
    assert proc.wait() == -9


def test_member_states_tell_running_leaving_gone_and_remote_workers():
    host = socket.gethostname()
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    live = f"{host}-{os.getpid()}"  # this process stands for the first run's driver
    proc = _child(f"{live}-w0")
    try:
        members = [_member(live, f"{live}-w0"), _member(live, f"{live}-w1"),
                   _member(f"{host}-{dead.pid}", f"{host}-{dead.pid}-w0"),
                   _member(f"another-host-{os.getpid()}", f"another-host-{os.getpid()}-w0")]
        mine = f"{host}-{os.getpid() + 1}"  # the second run's driver
        assert _member_states(members, mine) == ["running", "leaving", "gone", "remote"]
    finally:
        proc.kill()
        proc.wait()
    assert _member_states(members[:2], mine) == ["leaving", "leaving"]
