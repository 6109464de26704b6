"""Ctrl-C always interrupts ``streamsql run`` (breaker, attack 4).

A SIGINT that came while DuckDB ran a query in the main thread (planning a statement) was turned
by DuckDB into an exception of its own (``Query interrupted``): where that propagated, the run
said ``[ERROR] Internal error (a bug in StreamSQL; please report it): Query interrupted`` and
exited 1; where code around the query caught it, the Ctrl-C was lost and the run waited for its
unbounded job for good (seen once in 10 Ctrl-Cs of a run of a Kafka job, and 3 of 40 SIGINTs
during planning gave DuckDB's exception instead of KeyboardInterrupt).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time

import pytest

from streamsql import cli

SCRIPT = """CREATE TABLE ticks (id INT) WITH ('connector' = 'datagen', 'rows-per-second' = '20');
CREATE TABLE bh (id INT) WITH ('connector' = 'blackhole');
INSERT INTO bh SELECT id FROM ticks;
"""


@pytest.fixture
def handlers():
    saved = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGUSR1)}
    yield
    for s, h in saved.items():
        signal.signal(s, h)


def _ctrl_c_during_a_duckdb_query(swallow: bool):
    """After the real statements, Ctrl-C while "DuckDB" runs a query in the main thread: as DuckDB
    does, the KeyboardInterrupt raised in it comes out as ``RuntimeError: Query interrupted``
    (what 2 of the 40 SIGINTs during planning gave, the rest giving KeyboardInterrupt)."""
    real = cli._run_statements

    def run_statements(*args):
        real(*args)
        try:
            try:
                signal.raise_signal(signal.SIGINT)
            except KeyboardInterrupt:
                msg = "Query interrupted"
                raise RuntimeError(msg) from None
        except RuntimeError:
            if not swallow:
                raise

    return run_statements


@pytest.mark.parametrize("swallow", [False, True], ids=["duckdb-error-propagates", "caught-and-lost"])
def test_ctrl_c_while_duckdb_runs_a_query_interrupts_the_run(tmp_path, monkeypatch, handlers, capsys,
                                                             swallow):
    (tmp_path / "s.sql").write_text(SCRIPT)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(cli, "_run_statements", _ctrl_c_during_a_duckdb_query(swallow))
    # a lost Ctrl-C leaves the run waiting for its unbounded job: end it, as a second Ctrl-C would
    watchdog = threading.Timer(30, signal.pthread_kill, (threading.main_thread().ident, signal.SIGUSR1))
    watchdog.start()
    started = time.monotonic()
    try:
        rc = cli.main(["run", "s.sql", "--set", f"execution.checkpointing.dir={tmp_path}/chk",
                       "--set", f"state.dir={tmp_path}/state"])
    finally:
        watchdog.cancel()
    err = capsys.readouterr().err
    assert time.monotonic() - started < 25, "the Ctrl-C was lost: the run waited on"
    assert "Internal error" not in err
    assert rc == 130 and "[INFO] Interrupted; cancelling jobs." in err
    # what was done, and what a rerun resumes from: the cancelled job's summary
    assert "[INFO] Job 'insert-into_bh-" in err and "' CANCELED: " in err and " rows in, " in err


def test_ctrl_c_while_the_command_starts_exits_130_without_a_traceback(monkeypatch, capsys, handlers):
    """A Ctrl-C while `streamsql run` imports its modules (2-6 s into the run on this loaded
    machine, before it waits for its jobs) ended it with Python's traceback and the signal's
    status (-2): 10 of 10 Ctrl-Cs of a campaign landed there."""
    def importing(args):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "cmd_run", importing)
    monkeypatch.setattr("sys.argv", ["streamsql", "run", "s.sql"])
    with pytest.raises(SystemExit) as ended:
        try:
            cli.console()
        except KeyboardInterrupt:  # never let it end the test session
            pytest.fail("the Ctrl-C escaped: Python's traceback, status -2")
    assert ended.value.code == 130
    assert capsys.readouterr().err == "\n[INFO] Interrupted.\n"


@pytest.mark.parametrize("how", ["run", "piped shell"])
@pytest.mark.parametrize(("sig", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)],
                         ids=["SIGINT", "SIGTERM"])
def test_a_signal_cancels_the_jobs_and_exits_128_plus_its_number(tmp_path, how, sig, code):
    """Ctrl-C exits 130 and ``kill`` 143 (128 + the signal's number, what a shell reports for a
    process the signal ended), both after cancelling the jobs cleanly: SIGTERM exited 130 too."""
    (tmp_path / "s.sql").write_text(SCRIPT)
    args = ["run", "s.sql"] if how == "run" else ["shell"]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), "STREAMSQL_HISTORY": str(tmp_path / "h")}
    proc = subprocess.Popen([sys.executable, "-m", "streamsql", *args], cwd=tmp_path, env=env, text=True,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        proc.stdin.write(SCRIPT if how != "run" else "")
        proc.stdin.close()
        started = threading.Event()
        out: list[str] = []

        # the piped shell waits for its jobs once the input ends: signal it there, not while its
        # INSERT statement is still returning (a signal then interrupts the statement instead)
        ready = "Job ID:" if how == "run" else "[INFO] End of input; waiting for"

        def read() -> None:
            for line in proc.stdout:
                out.append(line)
                if line.startswith(ready):
                    started.set()

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        assert started.wait(60), "".join(out)
        proc.send_signal(sig)
        err = proc.stderr.read()
        assert proc.wait(60) == code, "".join(out) + err
        reader.join(10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    text = "".join(out) + err
    assert "Traceback" not in text, text
    assert ("[INFO] Interrupted; cancelling jobs." in err and "' CANCELED: " in err if how == "run"
            else "[INFO] Cancelling 1 running job" in text), text
