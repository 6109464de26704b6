"""The ``streamsql`` command: ``run`` a SQL script, be a ``worker`` of one, or open the ``shell``.

With ``'parallelism.default'`` = N > 1, ``run`` starts N ``streamsql worker`` processes of the
script and waits for them; ``streamsql worker FILE.sql`` started on another machine (same
script, broker and checkpoint storage) joins the same jobs (docs/parallelism.md). Only ``run``
prints: the workers it starts hand it their failure (``--report-file``) and their tasks' counts
(the task topic's ``done`` records), and it prints them under its own job id.

Exit codes: 0 success (all jobs finished), 1 a statement or job failed, 2 bad usage,
130 interrupted by Ctrl-C (SIGINT), 143 by ``kill`` (SIGTERM): either way the jobs are cancelled
cleanly (128 + the signal's number, as a shell reports a process the signal ended).
"""

from __future__ import annotations

import argparse
import atexit
import contextlib
import logging
import os
import signal
import socket
import sys
import threading
from typing import TYPE_CHECKING

from streamsql.core.errors import StreamSQLError, user_text
from streamsql.core.interrupts import INTERRUPTED, exit_code, interrupt
from streamsql.core.lifeline import die_with_driver
from streamsql.core.secrets import redact, remember

if TYPE_CHECKING:
    from collections.abc import Callable

    from sqlglot import exp


def _settings(pairs: list[str]) -> dict[str, str]:
    """``--set KEY=VALUE`` pairs, checked as ``SET`` checks them (a bad value exits 2)."""
    from streamsql.core.config import check_setting

    out = {}
    for p in pairs or []:
        if "=" not in p:
            sys.stderr.write(f"[ERROR] --set expects KEY=VALUE, got {p!r}\n")
            sys.exit(2)
        k, v = (x.strip() for x in p.split("=", 1))
        remember({k: v})
        try:
            warning = check_setting(k, v)
        except StreamSQLError as e:
            sys.stderr.write(f"[ERROR] --set {redact(p)}: {redact(str(e))}\n")
            sys.exit(2)
        if warning:
            sys.stderr.write(warning + "\n")
        out[k] = v
    return out


def cmd_run(args: argparse.Namespace) -> int:
    """Run a script: statements in order, then wait for every INSERT job.

    A job that fails is reported the moment it fails (:class:`~streamsql.jobs.FailureWatch`),
    even while another, unbounded job runs on; the run then cancels the others and exits 1.
    """
    from streamsql.environment import StreamEnvironment
    from streamsql.jobs import FailureWatch, failure_notice, job_summary
    from streamsql.output import print_result
    from streamsql.sql.parser import read_script

    try:
        script = read_script(args.file)
    except StreamSQLError as e:
        sys.stderr.write(f"[ERROR] {e}\n")
        return 1
    from streamsql.runtime.parallel import ParallelRole

    env = StreamEnvironment(_settings(args.set))
    if args.command == "worker":
        driver = f"{socket.gethostname()}-{args.driver_pid}" if args.driver_pid else None  # its ids' prefix
        env.parallel_role = ParallelRole(worker_id=args.worker_id or socket.gethostname(), driver=driver)
    else:  # a parallel job's tasks run in worker processes of this same script
        command = [sys.executable, "-m", "streamsql", "worker", args.file]
        for p in args.set or []:
            command += ["--set", p]
        if getattr(args, "init", None):  # the workers declare the init file's tables too
            command += ["--init", args.init]
        env.parallel_role = ParallelRole(tuple(command))
    voice = _Voice(getattr(args, "report_file", None))
    if getattr(args, "init", None) and not _run_init(env, args.init, worker=args.command == "worker"):
        env.close()
        return 1
    failed = []
    running_statements = threading.Event()

    def on_failure(job) -> None:
        voice.failure(failure_notice(job), redact(user_text(job.error)))
        if not failed and running_statements.is_set():
            # A real signal to the main thread: it may be blocked waiting for a query's rows, and
            # _thread.interrupt_main() only flags the handler without waking a blocked wait.
            # SIGUSR1 with our own handler, not SIGINT: a process started with SIGINT ignored (a
            # background job of a script, nohup, a test runner's worker) never gets Python's
            # KeyboardInterrupt handler for SIGINT, and the run then hung in the query for good.
            signal.pthread_kill(threading.main_thread().ident, signal.SIGUSR1)
        failed.append(job)

    try:
        with FailureWatch(env.jobs, on_failure):  # on leaving, every failure has been reported
            running_statements.set()
            shell_statements = _shell_statements(env, voice, worker=args.command == "worker")
            quit_ = _run_statements(env, script, args.file, _printer(env, voice.results, print_result),
                                    shell_statements)
            running_statements.clear()
            if _interrupted.is_set():  # a Ctrl-C that a query in DuckDB took for its own (see _on_sigint)
                raise KeyboardInterrupt
            if quit_:  # QUIT: cancel the jobs still running and end now, as the piped shell does
                return _quit_run(env, voice)
            env.wait_all()  # raises the first failure as it happens
        for job in env.jobs.values():
            voice.info(job_summary(job))
        env.close()  # every job ended; this removes the queries' scratch folder
        return 0
    except KeyboardInterrupt:
        return _interrupted_run(env, voice, failed)
    except Exception as e:  # never a bare traceback: say what failed, trace only with --verbose
        if _interrupted.is_set() and not failed:  # the Ctrl-C, turned into DuckDB's "Query interrupted"
            return _interrupted_run(env, voice, failed)
        if not any(e is job.error for job in failed):  # a job's failure is already reported
            text = redact(user_text(e))
            voice.failure(f"[ERROR] {text}", text)
        if args.verbose:
            import traceback

            sys.stderr.write(redact(traceback.format_exc()))
        env.close()
        return 1


def _run_init(env, path: str, worker: bool) -> bool:
    """``shell -i INIT -f FILE``: INIT's DDL, USE and SET statements first, as Flink's SQL client (-i, -f).

    Returns False (the error said on stderr, ``INIT:LINE``) when one fails or is another statement.
    A worker runs them silently.
    """
    from streamsql.shell.app import Shell

    with contextlib.ExitStack() as stack:
        out = stack.enter_context(open(os.devnull, "w")) if worker else sys.stderr
        return Shell(env, interactive=False, stdout=out).run_init(path)


def _interrupted_run(env, voice, failed: list) -> int:
    """End a run that Ctrl-C or SIGTERM interrupted: cancel its jobs; 130 or 143 (1 if a job failed first).

    Each cancelled job's summary follows (:func:`~streamsql.jobs.job_summary`: rows, the checkpoint
    it resumed from, its last one), so the user sees what a rerun of the script resumes from.
    """
    from streamsql.jobs import job_summary

    if failed:
        env.close()
        return 1
    voice.info("\n[INFO] Interrupted; cancelling jobs.")
    env.close()
    for job in env.jobs.values():
        voice.info(job_summary(job))
    return exit_code()


class _Voice:
    """Where ``run`` and ``worker`` say things: the terminal, or only the driver of a started worker.

    A worker that ``streamsql run`` started (``--report-file``) runs the driver's script under
    job ids of its own: its statement results, summaries and interrupt notices would repeat the
    driver's, so they are dropped, and its failure goes to the report file, which the driver
    raises as its job's error (printed once, under the driver's job id). If the file cannot be
    written, the failure is printed here.

    Args:
        report_file: the worker's ``--report-file``, or None (say everything here).
    """

    def __init__(self, report_file: str | None):
        self.report_file = report_file
        self.results = open(os.devnull, "w") if report_file else sys.stdout  # noqa: SIM115 (the process's)

    def info(self, text: str) -> None:
        """An informational line (dropped in a started worker)."""
        if not self.report_file:
            sys.stderr.write(text + "\n")

    def failure(self, notice: str, error: str) -> None:
        """A failure: ``notice`` for the terminal, ``error`` (its text) for the driver (the first only)."""
        if self.report_file:
            try:
                with open(self.report_file, "x", encoding="utf-8") as f:
                    f.write(error)
                return
            except FileExistsError:
                return
            except OSError:
                pass
        sys.stderr.write(notice + "\n")
        sys.stderr.flush()


def _shell_statements(env, voice: _Voice, worker: bool) -> Callable[[exp.Expr, str], bool]:
    """How a script runs its shell statements (PRINT TOPIC, HELP, QUIT ...): as the piped shell does.

    One non-interactive shell of ``env`` runs them (``streamsql.shell``: the same parser and
    commands as the prompt and a pipe), writing to the run's results; a PRINT TOPIC read is bounded
    by the script's jobs (``streamsql.shell.print_topic``). A worker runs none of them but QUIT
    (they only print, and a worker prints nothing of the script's): QUIT ends its statements too.

    Returns:
        ``run(tree, sql)``: False when the statement is QUIT/EXIT (the script ends), else True.
    """
    from streamsql.shell.app import Shell
    from streamsql.shell.commands import command_of

    shell = Shell(env, interactive=False, stdout=voice.results, raise_errors=True)

    def run(tree, sql: str) -> bool:
        if not worker:
            go_on = shell.execute(tree, sql)
            if _interrupted.is_set():  # a Ctrl-C that ended a PRINT TOPIC read ends the run (130)
                raise KeyboardInterrupt
            return go_on
        found = command_of(tree, sql)
        return found is None or found[0].name != "QUIT"

    return run


def _quit_run(env, voice: _Voice) -> int:
    """QUIT in a script: cancel the jobs still running, naming them, then each job's summary; exit 0.

    As the piped shell's QUIT (``streamsql.shell.app.run_script_stream``): the jobs live in this
    process, so they cannot outlive it.
    """
    from streamsql.jobs import job_summary

    running = [j.job_id for j in env.jobs.values() if not j.done]
    if running:
        voice.info(f"[INFO] QUIT: cancelling {len(running)} running job{'s' if len(running) > 1 else ''}: "
                   + ", ".join(running))
    env.close()
    for job in env.jobs.values():
        voice.info(job_summary(job))
    return 0


def _printer(env, out, print_result) -> Callable:
    """How a script prints a statement's result: a query's rows as they arrive, as Flink's client -f.

    (``streamsql.shell.script_query``: Flink's streaming tableau; Ctrl-C ends only the query in a
    terminal, the run without one); the rest as :func:`~streamsql.output.print_result` prints it.
    """
    from streamsql.shell.results import int_setting
    from streamsql.shell.script_query import print_query

    def show(result) -> None:
        if result.kind == "query":
            print_query(result, out, int_setting(env.config.get("sql-client.display.max-column-width"), 30),
                        go_on=sys.stdin.isatty())  # Ctrl-C: only the query, in a terminal (as Flink's)
        else:
            print_result(result, out)

    return show


def _run_statements(env, script: str, file: str, print_result,
                    shell_statement: Callable[[exp.Expr, str], bool] | None = None) -> bool:
    """Parse the whole script, then run its statements in order, printing each (``print_result(result)``).

    Shell statements (``streamsql.shell.commands.SHELL_STATEMENTS``) go to ``shell_statement``;
    without it they are refused, as any statement the environment does not run.

    Returns:
        True when QUIT (or EXIT) ended the script before its end, else False.

    Raises:
        StreamSQLError: the first failing statement, positioned in the script.
    """
    from sqlglot import exp

    from streamsql.core.errors import StatementError
    from streamsql.shell.commands import SHELL_STATEMENTS
    from streamsql.shell.script_query import check_result_mode
    from streamsql.sql.parser import error_in_script, parse_script

    # Parse the whole script first: a syntax error at the end must not leave jobs running.
    statements = parse_script(script, file)
    for i, (st, tree) in enumerate(statements):
        try:
            if shell_statement is not None and isinstance(tree, SHELL_STATEMENTS):
                if not shell_statement(tree, st.text):
                    return True
                continue
            if isinstance(tree, exp.Query):  # only in tableau mode, as Flink's SQL client -f
                check_result_mode(env.config, st.text)
            result = env.execute_parsed(tree, st.text)
        except StatementError as e:  # a SqlError, PlanError or OptionError: re-position it in the script
            raise error_in_script(e, st, script, file, [s for s, _ in statements[:i]]) from None
        except StreamSQLError as e:
            msg = f"{file}:{st.line}: {e}"
            raise type(e)(msg) from None
        for warning in result.warnings:  # at the script's line:column, as errors are
            moved = error_in_script(warning, st, script, file)
            result.message = result.message.replace(str(warning), str(moved))
        print_result(result)
    return False


def cmd_shell(args: argparse.Namespace) -> int:
    """Start the interactive shell."""
    try:
        from streamsql.shell.app import run_shell
    except ImportError as e:
        sys.stderr.write(f"[ERROR] The shell is not available: {e}\n")
        return 1
    return run_shell(init_file=args.init, settings=_settings(args.set))


def _interrupt(signum, frame):
    raise KeyboardInterrupt


#: Set by the first Ctrl-C (SIGINT) or SIGTERM: the run is interrupted, whatever became of the
#: KeyboardInterrupt (see :func:`_on_sigint`).
_interrupted = INTERRUPTED


def _on_sigint(signum, frame):
    """Ctrl-C or SIGTERM: remember it, then raise KeyboardInterrupt (Python's default for SIGINT).

    Remembered because the KeyboardInterrupt may not reach :func:`cmd_run`: DuckDB, when the
    signal comes while it runs a query of the planner or the shell (a statement being planned),
    turns it into an exception of its own ("Query interrupted", or a failed read of a registered
    table), which code around the query may catch and go on (the Ctrl-C was lost: the run kept
    going) or which reached the user as "Internal error (a bug in StreamSQL ...)" with exit 1
    instead of the interrupt's 130 (143 for SIGTERM: :func:`~streamsql.core.interrupts.exit_code`).
    """
    interrupt(signum)
    raise KeyboardInterrupt


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``streamsql`` command as a function: its exit code."""
    return _dispatch(_arguments(argv))


def console() -> None:
    """The process entry point (``python -m streamsql``, the ``streamsql`` script).

    A ``run`` or ``worker`` that succeeded exits through :func:`exit_now`; anything else exits
    as Python does. A Ctrl-C before the command took it over (while it imports its modules, a
    few seconds on a loaded machine: no job has started) exits 130 too, without a traceback; a
    closed stdout (the shell's output piped into ``head``) exits 1 without one.
    """
    args = _arguments(None)
    try:
        rc = _dispatch(args)
    except KeyboardInterrupt:
        sys.stderr.write("\n[INFO] Interrupted.\n")
        sys.exit(exit_code())
    except BrokenPipeError:  # the reader of our output left (`streamsql shell < s.sql | head`)
        # End quietly, as Unix tools do, not with a traceback; stdout goes to /dev/null so that
        # Python's last flush on exit does not fail again.
        with contextlib.suppress(OSError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(1)
    if rc == 0 and args.command in ("run", "worker"):
        exit_now(rc)
    sys.exit(rc)


#: The options of Flink's SQL client that ``streamsql`` takes without a command, as ``shell``'s:
#: ``sql-client.sh -f s.sql`` (no mode: Flink's default, embedded) is ``streamsql -f s.sql``.
_FLINK_CLIENT_OPTIONS = ("-f", "--file", "-i", "--init")


def _arguments(argv: list[str] | None) -> argparse.Namespace:
    """The parsed command line (``sys.argv[1:]`` when ``argv`` is None); bad usage exits 2.

    ``shell [-i INIT] -f FILE`` is ``run FILE`` after INIT, and a command line that starts with one
    of Flink's SQL client options (:data:`_FLINK_CLIENT_OPTIONS`) is ``shell``'s: ``streamsql -f
    FILE`` runs FILE, ``streamsql -i INIT`` prompts after INIT, as ``sql-client.sh`` does.
    """
    from streamsql import __version__

    parser = argparse.ArgumentParser(prog="streamsql", description="Streaming SQL over Kafka, exactly-once.")
    parser.add_argument("--version", action="version", version=f"streamsql {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="run a SQL script; exits when all its jobs finish")
    run.add_argument("file", help="the .sql script")
    run.add_argument("--set", action="append", metavar="KEY=VALUE", help="a configuration setting")
    run.add_argument("--verbose", action="store_true", help="print stack traces of errors")
    worker = sub.add_parser("worker", help="run tasks of a script's parallel jobs (joins their workers)")
    worker.add_argument("file", help="the .sql script (the same one 'streamsql run' runs)")
    worker.add_argument("--set", action="append", metavar="KEY=VALUE", help="a configuration setting")
    worker.add_argument("--worker-id", help="this worker's stable id in the group (default: the host name)")
    worker.add_argument("--verbose", action="store_true", help="print stack traces of errors")
    # Given by 'streamsql run' to the workers it starts: tell it why this worker failed (see _Voice).
    worker.add_argument("--report-file", help=argparse.SUPPRESS)
    # ... and its own pid: the worker dies with it (streamsql.core.lifeline)
    worker.add_argument("--driver-pid", type=int, help=argparse.SUPPRESS)
    # ... and the init file of 'streamsql shell -i INIT -f FILE' (run before the script)
    worker.add_argument("--init", help=argparse.SUPPRESS)
    shell = sub.add_parser("shell", help="interactive SQL shell")
    shell.add_argument("-i", "--init", help="a script of DDL and SET statements to run first")
    shell.add_argument("--set", action="append", metavar="KEY=VALUE", help="a configuration setting")
    shell.add_argument("-f", "--file", help="run this script and exit instead of prompting (Flink's SQL "
                                            "client -f; the same as 'streamsql run FILE')")
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] in _FLINK_CLIENT_OPTIONS:  # `sql-client.sh -f s.sql`: Flink's client needs no mode
        argv = ["shell", *argv]
    args = parser.parse_args(argv)
    if args.command == "shell" and args.file:
        args.command, args.verbose = "run", False
    return args


def _dispatch(args: argparse.Namespace) -> int:
    """Run the parsed command; its exit code."""
    if getattr(args, "driver_pid", None):  # first: a driver killed from here on takes this worker along
        die_with_driver(args.driver_pid)
    logging.basicConfig(level=os.environ.get("STREAMSQL_LOG", "WARNING").upper(),
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    _take_sigint(ignore=bool(getattr(args, "report_file", None)))
    if args.command in ("run", "worker") or not sys.stdin.isatty():
        signal.signal(signal.SIGTERM, _on_sigint)  # `kill` stops jobs as cleanly as Ctrl-C (exit 143)
    if args.command in ("run", "worker"):
        signal.signal(signal.SIGUSR1, _interrupt)  # a job failed: stop waiting (cmd_run)
        return cmd_run(args)
    return cmd_shell(args)


def _take_sigint(ignore: bool = False) -> None:
    """Ctrl-C (SIGINT) raises KeyboardInterrupt in every command, whatever the process inherited.

    Python installs its KeyboardInterrupt handler only when SIGINT is not ignored at start-up, and
    a process started as a background job of a non-interactive shell (``streamsql ... &`` in a
    script, a CI runner) inherits it ignored: a SIGINT was then lost, so the piped shell that says
    "Ctrl-C cancels them" waited for its unbounded job for good (its test, run so, hangs as it
    did in the clean-clone CI). The jobs run in this process and nothing else can stop them cleanly, so
    SIGINT is always ours — except in a worker that ``streamsql run`` started (``ignore``): a
    terminal's Ctrl-C reaches the whole process group, and the driver stops its workers itself
    (SIGTERM), so a worker's own exit on it is not taken for a failure.
    """
    _interrupted.clear()
    signal.signal(signal.SIGINT, signal.SIG_IGN if ignore else _on_sigint)


def exit_now(rc: int) -> None:
    """End the process with ``rc``, doing what a normal exit does that has an effect, skipping the rest.

    What is kept: non-daemon threads are joined, the ``atexit`` handlers run (logging's flush,
    ``weakref.finalize`` callbacks), stdout and stderr are flushed. What is skipped is Python's
    finalization (module teardown, its garbage collections, every object's destructor): ~0.35
    CPU-s of a process that ran a job (an empty Q1 job: 1.52 vs 1.14 CPU-s), paid by every
    worker of a parallel job. Only for a successful run: every job then ended — committed,
    its clients, state backend and folders closed — and :meth:`StreamEnvironment.close` ran, so
    no destructor is left with work to do.
    """
    main_thread = threading.main_thread()
    for t in threading.enumerate():
        if t is not main_thread and not t.daemon:
            t.join()
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(rc)


if __name__ == "__main__":
    console()
