"""``streamsql run`` of a compat case without paying Python's start-up and StreamSQL's imports each time.

A case's run is ~0.5 s of work after ~1.5–2.5 s of start-up (the interpreter, then ~1.1 CPU-s of
imports: DuckDB, pyarrow, sqlglot, the engine), so 440 cases as separate processes spent most of
the suite's time starting. A :class:`ForkServer` is one process that imports what ``streamsql
run`` imports, single-threaded, and then forks a child per case: the child points its stdin at
/dev/null and its stdout and stderr at files, changes to the case's folder, sets ``sys.argv`` and
calls :func:`streamsql.cli.console` — the function the ``streamsql`` command runs — and ends as
that process would (its own exit code, or the interpreter's exit on an exception). Each case
still runs in a process of its own, as the user's command does; only the imports are shared.

What differs from ``python -m streamsql run``: the modules are imported before the fork (they are
imported anyway by the run, before it reads the script) and the children of one server share its
hash seed (``PYTHONHASHSEED`` is random per server, as it was per process); ``random`` is seeded
again in each child by Python itself (``os.register_at_fork``), ``uuid4`` and ``secrets`` read the
OS's entropy, so job ids still differ from run to run.
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import threading
from pathlib import Path

ROOT = str(Path(__file__).resolve().parents[2])
#: What ``cmd_run`` imports before it reads the script, the planner it then uses, and the DDL reader
#: and formats the cases' tables use.
PRELOAD = ("streamsql.cli", "streamsql.environment", "streamsql.jobs", "streamsql.output",
           "streamsql.sql.parser", "streamsql.plan.planner", "streamsql.sql.ddl", "streamsql.sql.like",
           "streamsql.connectors.formats.json", "streamsql.connectors.formats.json_stream",
           "streamsql.connectors.formats.debezium_json", "streamsql.connectors.formats.csv",
           "streamsql.connectors.formats.raw")
_SERVER = ("import sys; sys.path.insert(0, {root!r}); from tests.compat.forkserver import serve; serve(); "
           "from streamsql.cli import console; console()")


def serve() -> None:
    """The server's loop: one request (a JSON line) on stdin, a fork, ``pid`` then the wait status back.

    Returns only in a child, set up as the ``streamsql`` process of its request; the caller then
    runs :func:`streamsql.cli.console`.
    """
    import importlib

    for name in PRELOAD:
        importlib.import_module(name)
    # The built-in connectors, as a script's first CREATE TABLE loads them: ~30 ms a case otherwise.
    importlib.import_module("streamsql.connectors.registry").known_connectors()
    # A Python thread running at the fork could hold a lock the child then waits on forever: refuse.
    # (The imports start two native threads, pyarrow's jemalloc background thread and numpy's
    # OpenBLAS worker; both libraries reset them in a forked child, as multiprocessing relies on.)
    if threading.active_count() != 1:
        sys.exit(f"forkserver: Python threads after the imports: {threading.enumerate()}; cannot fork safely")
    requests, replies = os.dup(0), os.dup(1)
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 0)
    os.dup2(devnull, 1)
    buffer = b""
    while True:
        while b"\n" not in buffer:
            chunk = os.read(requests, 65536)
            if not chunk:
                os._exit(0)
            buffer += chunk
        line, buffer = buffer.split(b"\n", 1)
        req = json.loads(line)
        pid = os.fork()
        if pid == 0:
            os.close(requests)
            os.close(replies)
            os.chdir(req["cwd"])
            if req.get("stdin"):
                stdin = os.open(req["stdin"], os.O_RDONLY)
                os.dup2(stdin, 0)
                os.close(stdin)
            for fd, path in ((1, req["stdout"]), (2, req["stderr"])):
                if fd == 2 and path == req["stdout"]:  # stderr into stdout, as stderr=STDOUT
                    os.dup2(1, 2)
                    continue
                out = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
                os.dup2(out, fd)
                os.close(out)
            os.close(devnull)
            sys.path.remove(ROOT)
            if req.get("env") is not None:
                _set_environment(req["env"])
            sys.argv = ["streamsql", *req["argv"]]
            return
        os.write(replies, f"{pid}\n".encode())
        _, status = os.waitpid(pid, 0)
        os.write(replies, f"{os.waitstatus_to_exitcode(status)}\n".encode())


def _set_environment(env: dict[str, str]) -> None:
    """In a child, the environment its request gives, as ``subprocess.run(..., env=env)`` would: the
    variables replaced, and ``PYTHONPATH``'s folders put first on ``sys.path`` (the interpreter reads
    it at start-up only). StreamSQL reads its variables when it runs, none on import."""
    os.environ.clear()
    os.environ.update(env)
    extra = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p and p not in sys.path]
    sys.path[:0] = extra


class ForkServer:
    """A server process; :meth:`run` does what ``subprocess.run(["streamsql", ...], capture_output=True,
    text=True)`` does, in a forked child.

    One request at a time: use one server per thread.
    """

    def __init__(self) -> None:
        self.proc = subprocess.Popen([sys.executable, "-c", _SERVER.format(root=ROOT)],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
        self._buffer = b""

    def _reply(self, timeout: float | None) -> str:
        """The server's next line; "" when ``timeout`` seconds passed without one."""
        fd = self.proc.stdout.fileno()
        while b"\n" not in self._buffer:
            if timeout is not None and not select.select([fd], [], [], timeout)[0]:
                return ""
            chunk = os.read(fd, 4096)
            if not chunk:
                msg = f"the fork server ended (exit code {self.proc.poll()})"
                raise RuntimeError(msg)
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        return line.decode()

    def run(self, argv: list[str], cwd: Path, timeout: float, env: dict[str, str] | None = None,
            input: str | None = None, merge_stderr: bool = False,
            files: Path | None = None) -> subprocess.CompletedProcess:
        """Run ``streamsql *argv`` in ``cwd``; its output goes through files ``<files>.stdout`` and
        ``.stderr`` (``files`` is by default ``cwd``'s path: beside it).

        ``env`` replaces the environment (the server's, which it inherited, by default); ``input`` is
        the text on its stdin (file ``<files>.stdin``; /dev/null by default); with ``merge_stderr``
        its stderr goes to its stdout (``stderr=subprocess.STDOUT``) and the result's ``stderr`` is "".

        Raises:
            subprocess.TimeoutExpired: the run took more than ``timeout`` seconds (it is killed).
        """
        files = cwd if files is None else files
        out, err = files.with_name(files.name + ".stdout"), files.with_name(files.name + ".stderr")
        err = out if merge_stderr else err
        req = {"argv": argv, "cwd": str(cwd), "stdout": str(out), "stderr": str(err), "env": env}
        if input is not None:
            stdin = files.with_name(files.name + ".stdin")
            stdin.write_text(input)
            req["stdin"] = str(stdin)
        self.proc.stdin.write((json.dumps(req) + "\n").encode())
        self.proc.stdin.flush()
        pid = int(self._reply(None))
        rc = self._reply(timeout)
        command = ["streamsql", *argv]
        stderr = (lambda: "") if merge_stderr else err.read_text
        if not rc:
            os.kill(pid, signal.SIGKILL)
            self._reply(None)
            raise subprocess.TimeoutExpired(command, timeout, out.read_text(), stderr())
        return subprocess.CompletedProcess(command, int(rc), out.read_text(), stderr())

    def close(self) -> None:
        """End the server (it exits when its stdin closes)."""
        self.proc.stdin.close()
        self.proc.wait(30)
        self.proc.stdout.close()
