"""``subprocess.run([sys.executable, "-m", "streamsql", ...])`` for tests, without its ~1.2 CPU-s of imports.

:func:`run_streamsql` forks each run from a :class:`tests.compat.forkserver.ForkServer` of this
process (started at the first run, ended at the process's exit: waited for, so that its runs' CPU
time counts as this process's children's, as the runs' would), so a
run is still a process of its own with its own exit code, stdin, stdout and stderr, working folder
and environment, as the ``streamsql`` command's; only the imports are shared (the server's module
docstring says what else differs). One server per thread that asks at the same moment: a test that
runs several at once gets several servers.

For a run the test talks to while it runs (signals, a terminal, reading its output as it comes),
keep ``subprocess.Popen``.
"""

from __future__ import annotations

import atexit
import os
import subprocess
import tempfile
import threading
from pathlib import Path

from tests.compat.forkserver import ForkServer

_idle: list[ForkServer] = []
_lock = threading.Lock()
_runs = 0
_files: tempfile.TemporaryDirectory | None = None


def run_streamsql(args: list[str], cwd, *, env: dict[str, str] | None = None, input: str | None = None,
                  timeout: float = 120, merge_stderr: bool = False) -> subprocess.CompletedProcess:
    """What ``subprocess.run([sys.executable, "-m", "streamsql", *args], cwd=cwd, env=env,
    input=input, capture_output=True, text=True, timeout=timeout)`` returns (with ``merge_stderr``:
    ``stdout=PIPE, stderr=STDOUT``, then ``stderr`` is None).

    ``env`` None is this process's environment now, as for ``subprocess.run``; ``input`` None is an
    empty stdin (/dev/null; ``subprocess.run`` would pass this process's own).

    Raises:
        subprocess.TimeoutExpired: the run took more than ``timeout`` seconds (it is killed).
    """
    global _runs, _files
    with _lock:
        server = _idle.pop() if _idle else None
        _runs += 1
        if _files is None:
            _files = tempfile.TemporaryDirectory(prefix="streamsql-cli-")
        files = Path(_files.name) / str(_runs)
    if server is None:
        server = ForkServer()
    try:
        proc = server.run(list(args), Path(cwd), timeout, env=dict(os.environ) if env is None else env,
                          input=input, merge_stderr=merge_stderr, files=files)
    except subprocess.TimeoutExpired:  # the run was killed: the server is free again
        with _lock:
            _idle.append(server)
        raise
    except BaseException:
        server.close()
        raise
    finally:
        for suffix in (".stdout", ".stderr", ".stdin"):
            files.with_name(files.name + suffix).unlink(missing_ok=True)
    with _lock:
        _idle.append(server)
    if merge_stderr:
        proc.stderr = None
    proc.args = ["streamsql", *args]
    return proc


@atexit.register
def close_servers() -> None:
    """End the idle servers and wait for them (a busy one ends when this process's exit closes its
    stdin). Runs at exit; tests/conftest.py calls it first, to count their CPU time in the worker's."""
    while _idle:
        _idle.pop().close()
