"""A worker tied to its driver (:func:`streamsql.core.lifeline.die_with_driver`) dies with it.

Each case runs a real process tree: a "driver" process that starts a "worker" and prints the
worker's pid. The driver's death is a ``kill -9`` (or its exit before the worker armed itself, the
race between fork and setup); the worker must be gone within seconds, without running on.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

#: The worker: ties itself to the pid given (in the way argv[2] says), says so, then would run for a
#: minute.
WORKER = textwrap.dedent("""
    import sys, time
    from streamsql.core import lifeline
    if sys.argv[2] == "poll":  # the fallback of a system without prctl
        lifeline._arm_pdeathsig = lambda: False
    if sys.argv[2] == "late":  # a slow start: the driver is gone before the tie is made
        time.sleep(1)
    lifeline.die_with_driver(int(sys.argv[1]))
    print("armed", flush=True)
    time.sleep(60)
    print("ran on", flush=True)
""")

#: The driver: starts the worker (tied to the driver's own pid, in ``mode``, writing into ``out``),
#: reports its pid, then lives ``life`` seconds. argv: worker code, mode, out, life.
DRIVER = textwrap.dedent("""
    import os, subprocess, sys, time
    worker = subprocess.Popen([sys.executable, "-c", sys.argv[1], str(os.getpid()), sys.argv[2]],
                              stdout=open(sys.argv[3], "w"))
    print(worker.pid, flush=True)
    time.sleep(float(sys.argv[4]))
""")


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def _wait_gone(pid: int, seconds: float = 5.0) -> bool:
    deadline = time.monotonic() + seconds
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    return not _alive(pid)


def _wait_armed(out, seconds: float = 30.0) -> None:
    deadline = time.monotonic() + seconds
    while "armed" not in out.read_text() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert "armed" in out.read_text()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc and PR_SET_PDEATHSIG")
@pytest.mark.parametrize("mode", ["prctl", "poll"])
def test_a_worker_dies_with_its_driver(tmp_path, mode):
    """Armed, then the driver is killed with SIGKILL: the worker is gone within 5 s, never ran on."""
    out = tmp_path / "worker.out"
    driver = subprocess.Popen([sys.executable, "-c", DRIVER, WORKER, mode, str(out), "60"],
                              stdout=subprocess.PIPE, text=True)
    worker = int(driver.stdout.readline())
    try:
        _wait_armed(out)
        assert _alive(worker)
        driver.send_signal(signal.SIGKILL)
        driver.wait()
        assert _wait_gone(worker)
        assert "ran on" not in out.read_text()
    finally:
        if _alive(worker):
            os.kill(worker, signal.SIGKILL)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc")
def test_a_worker_whose_driver_died_before_it_armed_stops_at_once(tmp_path):
    """The race between fork and setup: the driver is gone before the worker ties itself to it."""
    out = tmp_path / "worker.out"
    driver = subprocess.Popen([sys.executable, "-c", DRIVER, WORKER, "late", str(out), "0"],
                              stdout=subprocess.PIPE, text=True)
    worker = int(driver.stdout.readline())
    driver.wait()  # exited at once: the worker, still starting its interpreter, was handed on
    try:
        assert _wait_gone(worker, 30)
        assert out.read_text() == ""  # it never armed, never ran
    finally:
        if _alive(worker):
            os.kill(worker, signal.SIGKILL)


def test_a_worker_started_by_its_driver_runs():
    """The tie does nothing while the driver lives: the call returns in the driver's child."""
    code = ("import os, sys; from streamsql.core.lifeline import die_with_driver; "
            "die_with_driver(int(sys.argv[1])); print('ok')")
    done = subprocess.run([sys.executable, "-c", code, str(os.getpid())], capture_output=True, text=True,
                          timeout=60)
    assert (done.returncode, done.stdout) == (0, "ok\n")
