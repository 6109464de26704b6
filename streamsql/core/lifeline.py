"""A worker process that ``streamsql run`` started dies with it (docs/parallelism.md, step 7).

A driver killed with ``kill -9`` cannot stop its workers. They used to run on as orphans: they
finished the job, and a user who started the driver again had two sets of workers on the same
topics and checkpoint folder. :func:`die_with_driver` ties a worker to its driver instead, as the
worker's first act (before its imports, long before it joins the job's group):

- on Linux, ``prctl(PR_SET_PDEATHSIG, SIGKILL)``: the kernel kills the worker the moment its
  parent goes, whatever the worker is doing (blocked in librdkafka, holding the GIL, frozen
  mid-checkpoint). The signal comes when the *thread* that forked the worker ends: the driver's
  :meth:`~streamsql.runtime.parallel.ParallelJobRunner._run_workers`, which forks every worker
  and restarts them from the same loop, and outlives them;
- elsewhere, a daemon thread that looks at ``os.getppid()`` every :data:`POLL_S` seconds and
  kills its own process the same way.

The death signal is set only after the worker's interpreter started, so a driver that died
between the fork and that moment is not noticed by it: the worker has then already been handed to
another parent. Hence the driver's pid on the worker's command line (``--driver-pid``): a worker
whose parent is no longer that pid once the signal is armed kills itself before it does anything.

What dies is a process in the middle of whatever it did, exactly as a worker ``kill -9`` ends, which
the checkpoint protocol recovers from (docs/checkpointing.md's fault points): its open Kafka
transactions are aborted when the tasks' next owner fences them, and nothing past the last
committed checkpoint is committed. A worker started by hand (``streamsql worker``) has no driver
and is not tied to anything.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import threading
import time

#: ``PR_SET_PDEATHSIG`` from ``<linux/prctl.h>``.
PR_SET_PDEATHSIG = 1
#: How often a worker without ``prctl`` looks whether its driver is still its parent (s).
POLL_S = 0.5


def process_may_live(pid: int) -> bool:
    """Whether process ``pid`` of this host may still run (False only when it is certainly gone).

    A process of another user counts as alive (``kill(pid, 0)`` is not permitted on it).
    """
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def children_running(driver_pid: int, flag: str, values: set[str]) -> set[str] | None:
    """Which of ``values`` a running child of ``driver_pid`` has on its command line after ``flag``.

    E.g. ``children_running(pid, "--worker-id", ids)``: the ids of the workers that driver ``pid``
    started (:meth:`~streamsql.runtime.parallel.ParallelJobRunner._run_workers`) whose process
    still runs. Read from ``/proc/<pid>/stat`` (the parent pid) and ``/proc/<pid>/cmdline``; a
    zombie (exited, not yet reaped) does not count.

    Returns:
        The values found; None where ``/proc`` cannot tell (not Linux): the caller assumes they run.
    """
    try:
        pids = [int(d) for d in os.listdir("/proc") if d.isdigit()]
    except OSError:
        return None
    found: set[str] = set()
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat", "rb") as f:
                # "<pid> (<comm>) <state> <ppid> ...": comm may hold spaces and parentheses
                state, ppid = f.read().rpartition(b")")[2].split()[:2]
            if int(ppid) != driver_pid or state == b"Z":
                continue
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                argv = f.read().decode(errors="replace").split("\0")
        except (OSError, ValueError):  # gone meanwhile, or not readable
            continue
        found.update(v for k, v in zip(argv, argv[1:]) if k == flag and v in values)
    return found


def _die(driver_pid: int) -> None:
    sys.stderr.write(f"[ERROR] worker pid {os.getpid()}: its driver (pid {driver_pid}) is gone; stopping\n")
    sys.stderr.flush()
    os.kill(os.getpid(), signal.SIGKILL)  # as the kernel's death signal ends it: no cleanup, no commit


def _arm_pdeathsig() -> bool:
    """``prctl(PR_SET_PDEATHSIG, SIGKILL)``; False where there is no such call (not Linux)."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _watch(driver_pid: int) -> None:
    while os.getppid() == driver_pid:
        time.sleep(POLL_S)
    _die(driver_pid)


def die_with_driver(driver_pid: int) -> None:
    """End this process (SIGKILL) when process ``driver_pid``, its parent, ends (see module docstring).

    Returns only while ``driver_pid`` is this process's parent; kills this process at once when it is
    not (the driver died before this call).
    """
    armed = _arm_pdeathsig()
    if os.getppid() != driver_pid:  # checked after arming: a death after this check sends the signal
        _die(driver_pid)
    if not armed:
        threading.Thread(target=_watch, args=(driver_pid,), name="driver-watch", daemon=True).start()
